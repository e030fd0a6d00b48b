// A key's lease on its own: the sizing by demand and by the largest request, and the facts check a request
// must pass to be admitted on it.

import { describe, expect, it } from "vitest";
import { KeyLease, usable } from "../../src/billing/key-lease.js";
import type { LeaseGrant } from "../../src/store/billing/lease-script.js";

const facts: LeaseGrant = {
  state: "ok",
  delta: 0,
  amount: 0,
  expired: 0,
  keyName: "k",
  logBodies: false,
  allowedModels: null,
  expiresAt: null,
  hash: "h-now",
  previousHash: "h-before",
  previousUntil: 5000,
};

describe("a key's lease", () => {
  it("is sized for 8 of its largest requests at least, and for 2 s of its measured demand", () => {
    const lease = new KeyLease({ accountId: "a", keyId: "k" }, "lease:r:k:0", 0);
    lease.count(100, 0);
    expect(lease.target()).toBe(800);
    // 50 admissions within a second: 25 per second, so 2 s of demand is 50 requests.
    for (let i = 0; i < 49; i++) lease.count(40, 500);
    lease.count(40, 1000);
    expect(lease.rate).toBe(51);
    expect(lease.target()).toBe(102 * 100);
    lease.held = 300;
    expect(lease.target()).toBe(300 + 102 * 100);
  });

  it("never asks for more than 4 096 of its largest requests", () => {
    const lease = new KeyLease({ accountId: "a", keyId: "k" }, "lease:r:k:0", 0);
    for (let i = 0; i < 100_000; i++) lease.count(1, 0);
    lease.count(1, 1000);
    expect(lease.target()).toBe(4096);
  });
});

describe("usable", () => {
  const none = { kind: "none" } as const;
  it("admits the key's current value, and its previous one only within the grace period", () => {
    expect(usable(facts, "h-now", none, 10_000)).toBe(true);
    expect(usable(facts, "h-before", none, 4999)).toBe(true);
    expect(usable(facts, "h-before", none, 5000)).toBe(false);
    expect(usable(facts, "h-other", none, 0)).toBe(false);
    expect(usable({ ...facts, previousHash: "*" }, "h-any", none, 0)).toBe(true);
    expect(usable({ ...facts, hash: "" }, "h-any", none, 10_000)).toBe(true);
  });

  it("refuses at the key's expiry, and models outside its list or unknown", () => {
    expect(usable({ ...facts, expiresAt: 100 }, "h-now", none, 99)).toBe(true);
    expect(usable({ ...facts, expiresAt: 100 }, "h-now", none, 100)).toBe(false);
    const listed = { ...facts, allowedModels: ["llama"] };
    expect(usable(listed, "h-now", { kind: "named", model: "llama" }, 0)).toBe(true);
    expect(usable(listed, "h-now", { kind: "named", model: "qwen" }, 0)).toBe(false);
    expect(usable(listed, "h-now", { kind: "unknown" }, 0)).toBe(false);
    expect(usable(listed, "h-now", none, 0)).toBe(true);
  });
});
