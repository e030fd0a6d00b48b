// The model server's places as the gate takes them: this replica's own, and shared through Redis — here a
// stand-in for the sync script that answers as the test says, so that what is asked when, and what may be
// used meanwhile, can be checked one step at a time.

import { describe, expect, it } from "vitest";
import {
  LocalSlots,
  POLL_MS,
  SharedSlots,
  SLOT_TTL_MS,
  SYNC_EVERY_MS,
} from "../../../src/proxy/sharing/upstream-slots.js";
import type { SlotCount, SlotSync } from "../../../src/store/sharing/upstream-slots-store.js";
import { ManualTimers } from "../../helpers/timers.js";

describe("LocalSlots", () => {
  it("gives up to its limit and takes each back once", () => {
    const slots = new LocalSlots(2);
    expect([slots.take(), slots.take(), slots.take()]).toEqual([true, true, false]);
    slots.give();
    expect(slots.take()).toBe(true);
    slots.give();
    slots.give();
    slots.give();
    expect(slots.inUse).toBe(0);
  });
});

/** Lets the answers of the stand-in store (already settled promises) be handled. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function sharedSlots(answer: (input: SlotSync) => SlotCount | Error) {
  const timers = new ManualTimers();
  timers.ms = 1_000_000;
  const syncs: SlotSync[] = [];
  const errors: unknown[] = [];
  let freed = 0;
  let pending: (() => void) | null = null;
  let hold = false;
  const slots = new SharedSlots({
    store: {
      sync(input) {
        syncs.push(input);
        const reply = answer(input);
        const settleReply = () => (reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply));
        if (!hold) return settleReply();
        return new Promise((resolve, reject) => {
          pending = () => settleReply().then(resolve, reject);
        });
      },
    },
    limit: 8,
    now: timers.now,
    freed: () => freed++,
    onError: (error) => errors.push(error),
    after: timers.after,
  });
  return {
    slots,
    timers,
    syncs,
    errors,
    freed: () => freed,
    /** Holds the next replies until release() (a sync on its way). */
    holdReplies: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      pending?.();
      pending = null;
    },
  };
}

describe("SharedSlots", () => {
  it("asks Redis for places when requests wait beyond what it holds, and tells the gate when they come", async () => {
    const { slots, syncs, freed } = sharedSlots((input) => ({
      held: input.inUse + input.waiting,
      part: 8,
      total: 3,
    }));
    expect(slots.take()).toBe(false);
    slots.waiting(3);
    await settle();
    expect(syncs).toEqual([
      { now: 1_000_000, expiresAt: 1_000_000 + SLOT_TTL_MS, limit: 8, inUse: 0, waiting: 3 },
    ]);
    expect(freed()).toBe(1);
    expect([slots.take(), slots.take(), slots.take(), slots.take()]).toEqual([true, true, true, false]);
  });

  it("passes a place on to its own next request without Redis, while within its part", async () => {
    const { slots, syncs } = sharedSlots((input) => ({
      held: Math.min(4, input.inUse + input.waiting),
      part: 4,
      total: 4,
    }));
    slots.waiting(6);
    await settle();
    for (let i = 0; i < 4; i++) slots.take();
    slots.waiting(2);
    await settle();
    const before = syncs.length;
    slots.give();
    expect(slots.take()).toBe(true);
    expect(syncs.length).toBe(before);
  });

  it("gives a place back at once when nothing of its own waits, or when it holds more than its part", async () => {
    let part = 8;
    const { slots, syncs } = sharedSlots((input) => ({
      held: Math.max(input.inUse, Math.min(part, input.inUse + input.waiting)),
      part,
      total: 0,
    }));
    slots.waiting(4);
    await settle();
    for (let i = 0; i < 4; i++) slots.take();
    // Other replicas want places now: its part falls to 2, which it learns at its next sync.
    part = 2;
    slots.waiting(2);
    await settle();
    const before = syncs.length;
    slots.give();
    await settle();
    // Above its part, it gives the place back rather than passing it on to its own waiting request.
    expect(syncs.length).toBe(before + 1);
    expect(slots.take()).toBe(false);
    slots.waiting(0);
    slots.give();
    await settle();
    expect(syncs.at(-1)).toMatchObject({ inUse: 2, waiting: 0 });
  });

  it("takes no place beyond what a sync on its way counted, until it answers", async () => {
    const state = sharedSlots(() => ({ held: 4, part: 4, total: 4 }));
    const { slots } = state;
    slots.waiting(4);
    await settle();
    for (let i = 0; i < 4; i++) slots.take();
    slots.give();
    slots.give();
    state.holdReplies();
    // More wait than it holds free places for: a sync leaves, counting 2 in use.
    slots.waiting(5);
    expect([slots.take(), slots.take()]).toEqual([false, false]);
    state.release();
    await settle();
    expect([slots.take(), slots.take(), slots.take()]).toEqual([true, true, false]);
  });

  it("sends its count again every few seconds while it holds places, and polls while requests wait unserved", async () => {
    const { slots, syncs, timers } = sharedSlots((input) => ({ held: input.inUse, part: 8, total: 8 }));
    slots.waiting(2);
    await settle();
    expect(syncs).toHaveLength(1);
    timers.advance(POLL_MS);
    await settle();
    expect(syncs).toHaveLength(2);
    slots.waiting(0);
    timers.advance(SYNC_EVERY_MS);
    await settle();
    // Holding nothing and waiting for nothing: nothing to renew.
    expect(syncs.length).toBeLessThanOrEqual(3);
    slots.close();
  });

  it("gives what it holds back at once when it closes, and syncs no more", async () => {
    const { slots, syncs, timers } = sharedSlots((input) => ({
      held: input.inUse + input.waiting,
      part: 8,
      total: 2,
    }));
    slots.waiting(2);
    await settle();
    slots.take();
    slots.give();
    slots.waiting(0);
    await settle();
    const before = syncs.length;
    slots.close();
    await settle();
    expect(syncs.slice(before)).toEqual([expect.objectContaining({ inUse: 0, waiting: 0 })]);
    timers.advance(SYNC_EVERY_MS * 3);
    await settle();
    expect(syncs.length).toBe(before + 1);
  });

  it("reports a failed sync and keeps asking while requests wait", async () => {
    let fail = true;
    const { slots, syncs, errors, timers, freed } = sharedSlots((input) =>
      fail ? new Error("redis away") : { held: input.inUse + input.waiting, part: 8, total: 1 },
    );
    slots.waiting(1);
    await settle();
    expect(errors).toHaveLength(1);
    fail = false;
    timers.advance(POLL_MS);
    await settle();
    expect(syncs).toHaveLength(2);
    expect(freed()).toBe(1);
    expect(slots.take()).toBe(true);
  });
});
