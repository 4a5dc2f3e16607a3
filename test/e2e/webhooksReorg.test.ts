/**
 * Webhooks through a real reorg on anvil (evm_snapshot / evm_revert, then a longer chain), on both store backends:
 * a message already delivered for a block the reorg takes back is answered by a reversal message (its own ID,
 * `reverses` naming the original, the same event with every log `removed: true`), and the new chain's transaction
 * comes as a new message; a message of the dropped block not attempted yet is never delivered (the outbox test,
 * test/unit/dataApi/views/evm/webhookOutbox.test.ts, holds that path directly).
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {DevToken} from "../../src/dev/evm/artifacts.js";
import {contractAddress} from "../../src/dev/evm/traffic.js";
import {encodeAbi, encodeCall} from "../../src/evm/abi.js";
import {bytesToHex} from "../../src/evm/hex.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {startReceiver, type Receiver} from "../helpers/webhookReceiver.js";
import {KEY_A, WEBHOOK_CHAIN as CHAIN, keysFile, validated, webhookNodeFlags} from "../helpers/webhooks.js";

const ME = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const X = "0x" + "ab".repeat(20);

describe.each(STORE_BACKENDS)("webhooks through a reorg ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  let r: Receiver;
  const rpc = (method: string, params: unknown[]): Promise<unknown> => anvil.rawCall(method, params);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(new URL(p, t.url), {
      method,
      headers: {"content-type": "application/json", "x-glacier-api-key": KEY_A},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const mine = async (): Promise<bigint> => {
    await rpc("evm_mine", []);
    return BigInt((await rpc("eth_blockNumber", [])) as string);
  };
  const follower = () => t.node.dataApi!.evm!.chains.find((c) => c.follower?.status().chainId === CHAIN)!.follower!;

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual"},
      {logger: quietLogger()},
    );
    r = await startReceiver("ok");
    t = await startNode(
      webhookNodeFlags(anvil.url, keysFile(), await backend.db(), {"webhooks-allow-private-urls": true}),
    );
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await r?.close();
    await anvil?.stop();
  });

  it("reverses a delivered message of a dropped block, and delivers the new chain's", async () => {
    const nonce = Number(BigInt((await rpc("eth_getTransactionCount", [ME, "latest"])) as string));
    const token = contractAddress(ME, nonce);
    await rpc("eth_sendTransaction", [
      {
        from: ME,
        gas: "0x7a1200",
        data: DevToken.bytecode + bytesToHex(encodeAbi(["string", "string", "uint256"], ["Reorg", "RG", 10n ** 24n])),
      },
    ]);
    await follower().waitFor(await mine(), 60_000);
    const id = (
      await call("POST", "/v1/webhooks", {
        eventType: "address_activity",
        url: r.url,
        chainId: CHAIN,
        includeLogs: true,
        metadata: {addresses: [X]},
      })
    ).id as string;
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");

    const snap = await rpc("evm_snapshot", []);
    const dropped = (await rpc("eth_sendTransaction", [
      {
        from: ME,
        to: token,
        gas: "0x7a1200",
        data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [X, 1n]),
      },
    ])) as string;
    await follower().waitFor(await mine(), 60_000);
    await r.waitFor(1);
    await rpc("evm_revert", [snap]);
    const kept = (await rpc("eth_sendTransaction", [
      {
        from: ME,
        to: token,
        gas: "0x7a1200",
        data: encodeCall("transfer(address,uint256)", ["address", "uint256"], [X, 2n]),
      },
    ])) as string;
    await mine();
    await follower().waitFor(await mine(), 60_000);
    await r.waitFor(3);
    await new Promise((res) => setTimeout(res, 500));
    const got = (await validated(r, secret)) as Array<{
      messageId: string;
      webhookId: string;
      event: {transaction: {txHash: string; erc20Transfers: Array<{value: string}>}; logs: Array<{removed: boolean}>};
    }>;
    const raw = r.deliveries.map((d) => JSON.parse(d.body) as {messageId: string; reverses?: string});
    expect(got).toHaveLength(3);
    const [first, reversal, fresh] = [0, 1, 2].map((i) => ({...got[i]!, reverses: raw[i]!.reverses}));
    expect(first!.event.transaction.txHash).toBe(dropped);
    expect(first!.event.logs.every((l) => !l.removed)).toBe(true);
    const order = [reversal, fresh].sort((p, q) => (p!.reverses ? -1 : q!.reverses ? 1 : 0));
    expect(order[0]).toMatchObject({
      reverses: first!.messageId,
      webhookId: id,
      event: {transaction: {txHash: dropped}},
    });
    expect(order[0]!.messageId).not.toBe(first!.messageId);
    expect(order[0]!.event.logs.length).toBeGreaterThan(0);
    expect(order[0]!.event.logs.every((l) => l.removed)).toBe(true);
    expect(order[1]!.event.transaction.txHash).toBe(kept);
    expect(order[1]!.event.transaction.erc20Transfers[0]!.value).toBe("2");
    expect(order[1]!.reverses).toBeUndefined();
    const states = async () =>
      (
        await t.node.dataApi!.sql.query<{state: string; reverses: string | null}>(
          "SELECT state, reverses FROM webhook_outbox WHERE webhook_id = $1",
          [id],
        )
      )
        .map((s) => `${s.state}${s.reverses ? "(reversal)" : ""}`)
        .sort();
    await expect.poll(states, {timeout: 10_000}).toEqual(["delivered", "delivered(reversal)", "dropped"]);
  });
});
