// The model server's places shared by replicas, on the suite's Redis (syncUpstreamSlots-2.lua): each replica's
// count set absolutely, parts divided by max-min fairness, the limit never exceeded, and a replica that stops
// sending forgotten at its expiry.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UpstreamSlotStore } from "../../../src/store/sharing/upstream-slots-store.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
const replicas = (...ids: string[]) =>
  ids.map((id) => new UpstreamSlotStore(store.redis, store.redisKeys, id));

beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const at = (now: number, inUse: number, waiting: number) => ({
  now,
  expiresAt: now + 10_000,
  limit: 8,
  inUse,
  waiting,
});

describe("UpstreamSlotStore", () => {
  it("gives a replica alone what it asks for, up to the limit, and takes back what it no longer uses", async () => {
    const [a] = replicas("a") as [UpstreamSlotStore];
    expect(await a.sync(at(0, 0, 3))).toEqual({ held: 3, part: 3, total: 3 });
    expect(await a.sync(at(1, 3, 20))).toEqual({ held: 8, part: 8, total: 8 });
    expect(await a.sync(at(2, 2, 0))).toEqual({ held: 2, part: 2, total: 2 });
    expect(await a.sync(at(3, 0, 0))).toEqual({ held: 0, part: 0, total: 0 });
    expect(await store.redis.hlen(store.redisKeys.upstreamSlots().held)).toBe(0);
  });

  it("divides the places by max-min fairness: a replica wanting less gets it, the rest is split evenly", async () => {
    const [a, b, c] = replicas("a", "b", "c") as [UpstreamSlotStore, UpstreamSlotStore, UpstreamSlotStore];
    await a.sync(at(0, 0, 1));
    await b.sync(at(0, 0, 0));
    // b asks for 10 with a wanting 1: a keeps 1, b may take the other 7.
    expect(await b.sync(at(1, 0, 10))).toEqual({ held: 7, part: 7, total: 8 });
    // c arrives wanting 10: its part is (8 - 1) / 2, rounded up, but only what b and a leave is free.
    expect(await c.sync(at(2, 0, 10))).toEqual({ held: 0, part: 4, total: 8 });
    // b's requests end: it keeps what runs, and its part is now 4, so what it frees goes to c.
    expect(await b.sync(at(3, 3, 7))).toMatchObject({ held: 4, part: 4 });
    expect(await c.sync(at(4, 0, 10))).toEqual({ held: 3, part: 4, total: 8 });
  });

  it("never takes back places in use, even above a replica's part", async () => {
    const [a, b] = replicas("a", "b") as [UpstreamSlotStore, UpstreamSlotStore];
    await a.sync(at(0, 0, 8));
    expect(await a.sync(at(1, 8, 5))).toMatchObject({ held: 8 });
    expect(await b.sync(at(2, 0, 5))).toEqual({ held: 0, part: 4, total: 8 });
    expect(await a.sync(at(3, 6, 5))).toMatchObject({ held: 6, part: 4 });
  });

  it("forgets a replica whose count was not sent again before its expiry", async () => {
    const [a, b] = replicas("a", "b") as [UpstreamSlotStore, UpstreamSlotStore];
    await a.sync({ ...at(0, 0, 8), expiresAt: 5000 });
    expect(await b.sync(at(4999, 0, 8))).toMatchObject({ held: 0 });
    expect(await b.sync(at(5001, 0, 8))).toEqual({ held: 8, part: 8, total: 8 });
  });
});
