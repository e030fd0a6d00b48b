// A key's fair-sharing settings on the request path: read once, then taken from memory and refreshed behind the
// scenes once older than FRESH_MS; a failed read leaves the defaults, never a refusal.

import { describe, expect, it } from "vitest";
import type { KeyRef } from "../../../src/core/key-ref.js";
import type { SharingFields } from "../../../src/core/sharing.js";
import { FRESH_MS, SharingCache } from "../../../src/proxy/sharing/sharing-cache.js";
import { TestClock } from "../../helpers/clock.js";

const REF: KeyRef = { accountId: "acme", keyId: "key_a" };
const NONE: SharingFields = {
  weight: null,
  accountPriority: null,
  accountMaxWaitMs: null,
  keyPriority: null,
  keyMaxWaitMs: null,
};

function cache(read: () => Promise<SharingFields>) {
  const clock = new TestClock();
  const errors: unknown[] = [];
  let reads = 0;
  const sharing = new SharingCache({
    store: {
      read: () => {
        reads++;
        return read();
      },
    },
    maxWaitMs: 30_000,
    now: clock.now,
    onError: (error) => errors.push(error),
  });
  return { sharing, clock, errors, reads: () => reads };
}

describe("SharingCache", () => {
  it("reads a key's settings once, then answers from memory without a promise", async () => {
    const { sharing, reads } = cache(async () => ({
      ...NONE,
      weight: 3,
      accountPriority: 2,
      keyMaxWaitMs: 500,
    }));
    const first = sharing.get(REF);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({ weight: 3, priority: 2, maxWaitMs: 500 });
    expect(sharing.get(REF)).toEqual({ weight: 3, priority: 2, maxWaitMs: 500 });
    expect(reads()).toBe(1);
  });

  it("reads one key once however many of its requests arrive before the answer", async () => {
    const { sharing, reads } = cache(async () => NONE);
    await Promise.all([sharing.get(REF), sharing.get(REF), sharing.get(REF)]);
    expect(reads()).toBe(1);
  });

  it("answers with what it has and refreshes it behind the scenes once it is older than FRESH_MS", async () => {
    let weight = 1;
    const { sharing, clock, reads } = cache(async () => ({ ...NONE, weight }));
    await sharing.get(REF);
    weight = 5;
    clock.advance(FRESH_MS);
    expect(sharing.get(REF)).toEqual({ weight: 1, priority: null, maxWaitMs: 30_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads()).toBe(2);
    expect(sharing.get(REF)).toEqual({ weight: 5, priority: null, maxWaitMs: 30_000 });
  });

  it("leaves a request the defaults when its settings cannot be read, and reports why", async () => {
    const { sharing, errors } = cache(async () => {
      throw new Error("redis away");
    });
    expect(await sharing.get(REF)).toEqual({ weight: 1, priority: null, maxWaitMs: 30_000 });
    expect(errors).toHaveLength(1);
    // Not cached: the next request asks again.
    expect(sharing.get(REF)).toBeInstanceOf(Promise);
  });
});
