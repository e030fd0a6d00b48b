// Failed sign-ins counted in Redis by the recordSignInFailure script: the subject is locked once it has
// failed `limit` times within the window, for the first lock and then twice as long at each lockout (up to
// the longest), and failures older than the window do not count. Time is the test's clock.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AttemptLimits } from "../../../src/store/people/sign-in-attempts-store.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const LIMITS: AttemptLimits = {
  limit: 3,
  windowMs: 60_000,
  firstLockMs: 60_000,
  longestLockMs: 150_000,
  memoryMs: 86_400_000,
};

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const attempts = () => store.stores.signInAttempts;

async function fail(times: number): Promise<number[]> {
  const locks: number[] = [];
  for (let i = 0; i < times; i++) locks.push(await attempts().fail("e:x", store.clock.now(), LIMITS));
  return locks;
}

describe("SignInAttemptsStore", () => {
  it("locks at the limit within the window, then doubles each lock up to the longest", async () => {
    expect(await fail(3)).toEqual([0, 0, 60_000]);
    expect(await attempts().lockedFor("e:x", store.clock.now())).toBe(60_000);
    store.clock.advance(45_000);
    expect(await attempts().lockedFor("e:x", store.clock.now())).toBe(15_000);
    store.clock.advance(15_000);
    expect(await attempts().lockedFor("e:x", store.clock.now())).toBe(0);
    expect(await fail(3)).toEqual([0, 0, 120_000]);
    store.clock.advance(120_000);
    expect(await fail(3)).toEqual([0, 0, 150_000]);
  });

  it("forgets failures older than the window", async () => {
    await fail(2);
    store.clock.advance(60_001);
    expect(await fail(2)).toEqual([0, 0]);
  });

  it("counts each subject apart, and forgets one that signed in", async () => {
    await fail(2);
    expect(await attempts().fail("ip:1.2.3.4", store.clock.now(), LIMITS)).toBe(0);
    await attempts().clear("e:x");
    expect(await fail(2)).toEqual([0, 0]);
  });
});
