/**
 * ICM events, avaext's fourth webhook type (`icm_activity`), on both store backends: a real anvil with the
 * interchain messenger installed (src/dev/evm/icm.ts), a message sent through it, and a receiver on 127.0.0.1 that
 * gets `message_sent` for it, signed as every delivery, carrying the message as `GET /v1/icm/messages/{id}` serves
 * it; a webhook filtered to other addresses, or to another sub-event, gets nothing.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {TELEPORTER_MESSAGE_INPUT_SPEC} from "../../src/dataApi/evm/icm.js";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {installIcm} from "../../src/dev/evm/icm.js";
import {ANVIL_ACCOUNTS} from "../../src/dev/evm/traffic.js";
import {encodeCallSpec} from "../../src/evm/abi.js";
import {hexToBytes} from "../../src/evm/hex.js";
import {canonicalJson} from "../../src/util/canonicalJson.js";
import {signature} from "../../src/dataApi/webhooks/post.js";
import {quietLogger, STORE_BACKENDS} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {startReceiver, type Receiver} from "../helpers/webhookReceiver.js";
import {KEY_A, WEBHOOK_CHAIN as CHAIN, keysFile, webhookNodeFlags} from "../helpers/webhooks.js";

const MESSENGER = "0x253b2784c75e510dd0ff1da844684a1ac0aa5fcf";

describe.each(STORE_BACKENDS)("ICM webhooks ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  const receivers: Receiver[] = [];
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(new URL(p, t.url), {
      method,
      headers: {"content-type": "application/json", "x-glacier-api-key": KEY_A},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const follower = () => t.node.dataApi!.evm!.chains.find((c) => c.follower?.status().chainId === CHAIN)!.follower!;
  const mine = async (): Promise<bigint> => {
    await anvil.rawCall("evm_mine", []);
    return BigInt((await anvil.rawCall("eth_blockNumber", [])) as string);
  };

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: 1_700_000_000, mining: "manual"},
      {logger: quietLogger()},
    );
    await installIcm(anvil, {networkId: 12345, blockchainId: "aa".repeat(32)});
    await mine();
    t = await startNode(
      webhookNodeFlags(anvil.url, keysFile(), await backend.db(), {"webhooks-allow-private-urls": true}),
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
    await anvil?.stop();
  });

  it("delivers message_sent with the message as the ICM endpoints serve it", async () => {
    const [all, toOthers, deliveredOnly] = await Promise.all([
      startReceiver("ok"),
      startReceiver("ok"),
      startReceiver("ok"),
    ]);
    receivers.push(all, toOthers, deliveredOnly);
    const hook = async (url: string, metadata: unknown) => {
      const made = await call("POST", "/v1/webhooks", {eventType: "icm_activity", url, chainId: CHAIN, metadata});
      expect(made.eventType, JSON.stringify(made)).toBe("icm_activity");
      return made.id as string;
    };
    const id = await hook(all.url, {
      subEvents: {icmActivitySubEvents: ["message_sent", "receipt_received"]},
      addresses: [ANVIL_ACCOUNTS[1]],
    });
    await hook(toOthers.url, {
      subEvents: {icmActivitySubEvents: ["message_sent"]},
      addresses: ["0x" + "77".repeat(20)],
    });
    await hook(deliveredOnly.url, {subEvents: {icmActivitySubEvents: ["message_delivered"]}});
    expect(
      (
        await call("POST", "/v1/webhooks", {
          eventType: "icm_activity",
          url: all.url,
          chainId: CHAIN,
          metadata: {subEvents: {icmActivitySubEvents: ["sent"]}},
        })
      ).message,
    ).toMatch(/^metadata\.subEvents\.icmActivitySubEvents\[0\]: /);
    const {secret} = await call("GET", "/v1/webhooks:getSharedSecret");

    await anvil.rawCall("eth_sendTransaction", [
      {
        from: ANVIL_ACCOUNTS[0],
        to: MESSENGER,
        gas: "0x2dc6c0",
        data: encodeCallSpec(
          "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
          [TELEPORTER_MESSAGE_INPUT_SPEC],
          [
            [
              hexToBytes("bb".repeat(32)),
              ANVIL_ACCOUNTS[1],
              ["0x" + "0".repeat(40), 0n],
              100_000n,
              [],
              new TextEncoder().encode("hello"),
            ],
          ],
        ),
      },
    ]);
    await follower().waitFor(await mine(), 60_000);
    await all.waitFor(1);
    await new Promise((res) => setTimeout(res, 1_000));
    expect(all.deliveries).toHaveLength(1);
    expect(toOthers.deliveries).toHaveLength(0);
    expect(deliveredOnly.deliveries).toHaveLength(0);
    const d = all.deliveries[0]!;
    expect(d.headers["x-signature"]).toBe(signature(d.body, secret));
    expect(d.body).toBe(canonicalJson(JSON.parse(d.body)));
    const p = JSON.parse(d.body) as {
      webhookId: string;
      eventType: string;
      event: {subEvent: string; chainId: string; txHash: string; icmMessage: {messageId: string}};
    };
    expect(p).toMatchObject({
      webhookId: id,
      eventType: "icm_activity",
      event: {subEvent: "message_sent", chainId: CHAIN},
    });
    const served = await (await fetch(new URL(`/v1/icm/messages/${p.event.icmMessage.messageId}`, t.url))).json();
    expect(p.event.icmMessage).toEqual(served);
    expect(p.event.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
