/**
 * The metrics service's /v2 over the real wire, through chainkit's own metrics.* calls (its zod schemas parse every
 * answer), on both stores: a test anvil (`--evm-rpc`) mines a history across hours and days, and every chain metric
 * at every interval it allows equals what the test computes from anvil's blocks and receipts (paged in small pages,
 * so tokens are followed); the chain list, rolling windows, ICM summary and time series, the staking series of the
 * dev network's genesis validators, health and live checks parse. Bad input gets the seed's error body.
 */
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {Avalanche} from "@avalanche-sdk/chainkit";
import {Anvil} from "../../src/dev/evm/anvil.js";
import {ANVIL_ACCOUNTS} from "../../src/dev/evm/traffic.js";
import {dayOnly} from "../../src/dataApi/queries/metrics.js";
import {ROLLING_METRICS} from "../../src/dataApi/queries/metricsWindows.js";
import {NETWORK_METRICS} from "../../src/dataApi/queries/stakingMetrics.js";
import {GRAINS, bucketStart} from "../../src/util/timeBuckets.js";
import {STORE_BACKENDS, quietLogger} from "../helpers/sql.js";
import {startNode, type TestNode} from "../helpers/node.js";
import {CHAIN_METRICS, expected, readHistory} from "../helpers/metricsHistory.js";

const CHAIN = "99973";
// Monday 2026-03-30 22:00 UTC: the history crosses days and the month's end.
const GENESIS = Date.UTC(2026, 2, 30, 22) / 1000;

describe.each(STORE_BACKENDS)("metrics service /v2 ($name)", (backend) => {
  let anvil: Anvil;
  let t: TestNode;
  let ck: Avalanche;
  // chainkit's metrics operations name their own server (metrics.avax.network) over the client's: each call is told.
  let at: {serverURL: string};
  let head = 0;
  let last = GENESIS;

  beforeAll(async () => {
    anvil = await Anvil.start(
      {chainId: Number(CHAIN), genesisTimestamp: GENESIS, mining: "manual"},
      {logger: quietLogger()},
    );
    const gaps = [1, 1, 40, 1_200, 3_000, 7_000, 30_000, 1, 2, 600, 50_000, 5];
    for (let i = 0; i < 24; i++) {
      for (let k = 0; k < 1 + (i % 3); k++) {
        await anvil.rawCall("eth_sendTransaction", [
          {from: ANVIL_ACCOUNTS[(i + k) % 5], to: ANVIL_ACCOUNTS[((i * 3 + k) % 7) + 1], value: "0x1", gas: "0x5208"},
        ]);
      }
      if (i % 7 === 3)
        await anvil.rawCall("eth_sendTransaction", [
          {from: ANVIL_ACCOUNTS[6], data: "0x600a600c600039600a6000f3602a60005260206000f3", gas: "0x30000"},
        ]);
      last += gaps[i % gaps.length]!;
      await anvil.rawCall("evm_mine", [{timestamp: last}]);
      head++;
    }
    t = await startNode({
      "network-id": "local",
      "index-enabled": true,
      feed: "dev",
      "dev-evm": false,
      "dev-backfill": "0",
      "data-api-enabled": true,
      "data-api-db": await backend.db(),
      "metrics-service-rate-limit": "0",
      "evm-rpc": `${CHAIN}=${anvil.url}`,
    });
    const c = t.node.dataApi!.evm!.chains.find((x) => x.follower?.status().chainId === CHAIN)!;
    await c.follower!.waitFor(BigInt(head), 60_000);
    at = {serverURL: t.url.toString().replace(/\/$/, "")};
    ck = new Avalanche({
      serverURL: at.serverURL,
      enableTelemetry: false,
      network: "fuji",
      retryConfig: {strategy: "none"},
    });
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await anvil?.stop();
  });

  it("serves every chain metric at every interval it allows, equal to the history, through chainkit's pages", async () => {
    const history = await readHistory(anvil, head);
    for (const metric of CHAIN_METRICS) {
      for (const grain of GRAINS) {
        if (dayOnly(metric) && grain !== "day") continue;
        const start = bucketStart(grain, history[0]!.timestamp);
        const pages = await ck.metrics.chains.getMetrics(
          {chainId: CHAIN, metric, timeInterval: grain, startTimestamp: start, endTimestamp: last, pageSize: 2},
          at,
        );
        const got: Array<{timestamp: number; value: number}> = [];
        let n = 0;
        for await (const page of pages) {
          got.push(...page.result.results);
          if (++n > 100) throw new Error("too many pages");
        }
        expect(got, `${metric} by ${grain}`).toEqual(expected(history, metric, grain));
      }
    }
  }, 120_000);

  it("lists the followed chain and answers for it", async () => {
    const pages = await ck.metrics.chains.list({}, at);
    const chains: Array<{evmChainId: number}> = [];
    for await (const p of pages) chains.push(...p.result.chains);
    expect(chains.map((c) => c.evmChainId)).toContain(Number(CHAIN));
    const one = await ck.metrics.chains.get({chainId: CHAIN}, at);
    expect(one.evmChainId).toBe(Number(CHAIN));
    expect(one.network).toBe("testnet");
    // A node of another network has none of the asked network's chains.
    const mainnet: unknown[] = [];
    for await (const p of await ck.metrics.chains.list({network: "mainnet"}, at)) mainnet.push(...p.result.chains);
    expect(mainnet).toEqual([]);
  });

  it("serves rolling windows, ICM, staking series, health and live checks in chainkit's shapes", async () => {
    const history = await readHistory(anvil, head);
    const txs = history.reduce((a, b) => a + b.txs.length, 0);
    for (const metric of ROLLING_METRICS) {
      const r = await ck.metrics.chains.getRollingWindowMetrics({chainId: CHAIN, metric}, at);
      expect(Object.keys(r.result).sort(), metric).toEqual([
        "allTime",
        "last90Days",
        "lastDay",
        "lastHour",
        "lastMonth",
        "lastWeek",
        "lastYear",
      ]);
      if (metric === "txCount") expect(r.result.allTime).toBe(txs);
    }
    const summary = await ck.metrics.chains.getICMSummary({}, at);
    expect(summary.result.allTime).toBe(0);
    const series = await ck.metrics.chains.getICMTimeseries({timeInterval: "day"}, at);
    expect(series.results).toEqual([]);
    const firstPage = async (
      metric: (typeof NETWORK_METRICS)[number],
    ): Promise<Array<{timestamp: number; value: number}>> => {
      for await (const p of await ck.metrics.networks.getStakingMetrics({metric, network: "fuji", pageSize: 5}, at))
        return p.result.results;
      return [];
    };
    for (const metric of NETWORK_METRICS) await firstPage(metric);
    // The dev network's genesis validators stake today (once the P-chain view has folded its genesis).
    await expect
      .poll(async () => (await firstPage("validatorCount"))[0]?.value ?? 0, {timeout: 30_000})
      .toBeGreaterThan(0);
    expect((await firstPage("validatorWeight"))[0]!.value).toBeGreaterThan(0);
    expect((await ck.metrics.healthCheck(at)).status).toBe("ok");
    expect((await ck.metrics.liveCheck(at)).status).toBe("ok");
  });

  it("answers bad input with the seed's error body", async () => {
    const cases: Array<[string, number, RegExp]> = [
      [`/v2/chains/${CHAIN}/metrics/nope`, 400, /metric must be one of/],
      [`/v2/chains/${CHAIN}/metrics/avgTps?timeInterval=week`, 400, /by day only/],
      [`/v2/chains/${CHAIN}/metrics/txCount?timeInterval=year`, 400, /timeInterval must be one of/],
      [`/v2/chains/${CHAIN}/metrics/txCount?pageSize=2161`, 400, /pageSize/],
      [`/v2/chains/${CHAIN}/metrics/txCount?startTimestamp=9&endTimestamp=3`, 400, /startTimestamp/],
      [`/v2/chains/${CHAIN}/metrics/txCount?startTimestamp=-1`, 400, /startTimestamp/],
      [`/v2/chains/${CHAIN}/metrics/txCount?pageToken=abc`, 400, /pageToken/],
      [`/v2/chains/${CHAIN}/metrics/txCount?color=red`, 400, /color is not a parameter/],
      [`/v2/chains/1/metrics/txCount`, 404, /chain 1 not found/],
      [`/v2/chains/total/metrics/txCount`, 404, /not served/],
      [`/v2/chains/${CHAIN}/rollingWindowMetrics/cumulativeTxCount`, 400, /metric must be one of/],
      [`/v2/networks/mainnet/metrics/validatorCount`, 404, /serves local/],
      [`/v2/networks/fuji/metrics/validatorCount?subnetId=abc`, 400, /only the primary network/],
      [`/v2/icm/timeseries?groupBy=chain`, 400, /groupBy/],
      [`/v2/chains?network=devnet`, 400, /network must be/],
      [`/v2/chains?pageToken=x`, 400, /one page/],
      [`/v2/nothing`, 404, /./],
    ];
    for (const [path, status, message] of cases) {
      const r = await t.get(path);
      expect(r.status, path).toBe(status);
      if (path !== "/v2/nothing") {
        const body = r.json() as {message: string[]; error: string; statusCode: number};
        expect(body.statusCode, path).toBe(status);
        expect(body.message.join(" "), path).toMatch(message);
      }
    }
    // A token is for its own listing only.
    const first = (await t.get(`/v2/chains/${CHAIN}/metrics/txCount?pageSize=1&timeInterval=hour`)).json() as {
      nextPageToken: string;
    };
    const other = await t.get(`/v2/chains/${CHAIN}/metrics/gasUsed?pageToken=${first.nextPageToken}`);
    expect(other.status).toBe(400);
    expect((other.json() as {message: string[]}).message[0]).toMatch(/another listing/);
  });
});
