// Failed sign-ins counted per e-mail and per client address on the suite's Redis, with the clock moved by hand:
// too many lock both, a lock refuses with 429 too_many_attempts and how long to wait, and success forgets the
// e-mail's failures while the address keeps its count.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SignInAttempts } from "../../src/identity/sign-in-attempts.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let attempts: SignInAttempts;
beforeEach(async () => {
  store = await openStore();
  const limits = {
    limit: 3,
    windowMs: 60_000,
    firstLockMs: 30_000,
    longestLockMs: 600_000,
    memoryMs: 86_400_000,
  };
  attempts = new SignInAttempts(store.stores.signInAttempts, limits, store.clock.now);
});
afterEach(() => store.close());

describe("sign-in attempts", () => {
  it("lock the e-mail and the address after too many failures, refusing with the wait", async () => {
    expect(await attempts.failed("ann@example.com", "10.0.0.1")).toEqual({ email: 0, address: 0 });
    await attempts.failed("ann@example.com", "10.0.0.1");
    const locked = await attempts.failed("ann@example.com", "10.0.0.1");
    expect(locked.email).toBeGreaterThan(0);
    expect(locked.address).toBeGreaterThan(0);
    await expect(attempts.assertAllowed("ann@example.com", "10.0.0.9")).rejects.toMatchObject({
      code: "too_many_attempts",
      message: `Too many failed sign-ins: try again in ${Math.ceil(locked.email / 1000)} seconds.`,
    });
    await expect(attempts.assertAllowed("bob@example.com", "10.0.0.1")).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    await expect(attempts.assertAllowed("bob@example.com", "10.0.0.9")).resolves.toBeUndefined();
  });

  it("let a locked e-mail try again once its lock is over", async () => {
    for (let i = 0; i < 3; i++) await attempts.failed("ann@example.com", `10.0.0.${i}`);
    await expect(attempts.assertAllowed("ann@example.com", "10.0.1.1")).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    store.clock.advance(30_001);
    await expect(attempts.assertAllowed("ann@example.com", "10.0.1.1")).resolves.toBeUndefined();
  });

  it("forget the e-mail's failures on success, saying whether it was locked; the address keeps its count", async () => {
    await attempts.failed("ann@example.com", "10.0.0.1");
    await attempts.failed("ann@example.com", "10.0.0.1");
    expect(await attempts.succeeded("ann@example.com")).toBe(false);
    // The e-mail starts again from nothing, the address had two failures: the third locks it alone.
    const third = await attempts.failed("ann@example.com", "10.0.0.1");
    expect(third.email).toBe(0);
    expect(third.address).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await attempts.failed("cat@example.com", `10.0.2.${i}`);
    expect(await attempts.succeeded("cat@example.com")).toBe(true);
    await expect(attempts.assertAllowed("cat@example.com", "10.0.3.1")).resolves.toBeUndefined();
  });

  it("count an e-mail only by its hash", async () => {
    await attempts.failed("ann@example.com", "10.0.0.1");
    expect((await store.allKeys()).join(" ")).not.toContain("ann@example.com");
  });
});
