/**
 * The dev feed's stored position: a network written by an earlier schedule (other accounts, contracts or traffic
 * on its EVMs) cannot be replayed, so it is refused with a message naming what to do, before anything starts.
 */
import {describe, expect, it} from "vitest";
import {NETWORKS} from "../../../src/chains/index.js";
import {DevFeed, DevScheduleVersionError, defaultDevFeedOptions} from "../../../src/feed/dev.js";
import {FeedStatus} from "../../../src/feed/status.js";

const feed = (): DevFeed => new DevFeed({...defaultDevFeedOptions, backfillMs: 0}, {status: new FeedStatus(), network: NETWORKS.local, evm: null});

describe("dev feed position", () => {
  it("refuses a position of an earlier schedule, naming the way out", async () => {
    for (const len of [24 + 6 * 32, 24 + 4 * 32]) {
      const err = await feed().prepare(new Uint8Array(len)).catch((e: Error) => e);
      expect(err).toBeInstanceOf(DevScheduleVersionError);
      expect((err as Error).message).toMatch(/written by an earlier avaext \(schedule 1, this one runs 2\).*Delete the data directory, or start with another --data-dir/);
    }
    await expect(feed().prepare(new Uint8Array(7))).rejects.toThrow(/not one this version writes/);
  });

  it("starts a new schedule without a position, and takes its own position back", async () => {
    const f = feed();
    await f.prepare(null);
    const items: Uint8Array[] = [];
    const ctl = new AbortController();
    await f.run(null, async (batch) => {
      items.push(batch.position);
      ctl.abort();
    }, ctl.signal).catch(() => undefined);
    expect(items.length).toBeGreaterThan(0);
    await expect(feed().prepare(items[0]!)).resolves.toBeUndefined();
  });
});
