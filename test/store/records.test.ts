// The typed views of the account and key hashes the Lua scripts write: every field read with its type,
// missing optional fields as null, and a hash that is not a record (deleted, half-written) as null.

import { describe, expect, it } from "vitest";
import { parseAccount, parseKey, parseModels } from "../../src/store/records.js";

const KEY_HASH = {
  id: "key_5m2x8q0c7w1r9t4z6b3n",
  account: "acme",
  name: "prod",
  hint: "a1b2",
  created_at: "1763719200000",
  expires_at: "1763805600000",
  budget: "5000000",
  period: "week",
  spent: "1250000",
  period_start: "1763337600000",
  models: '["gpt-x","llama-3"]',
  log_bodies: "1",
  revoked_at: "1763720000000",
  disabled_at: "1763719900000",
  rpm: "60",
  tpm: "100000",
  max_parallel: "4",
  rpm_tat: "1763720000000 7",
  hash: "b".repeat(64),
  previous_hash: "c".repeat(64),
  previous_until: "1763723600000",
  alert_at: "50,80,100",
  priority: "5",
  max_wait_ms: "2000",
};

describe("parseAccount", () => {
  it("reads an account's fields as numbers where they are amounts and times", () => {
    expect(
      parseAccount({
        id: "acme",
        name: "Acme Corp",
        balance: "10500001",
        created_at: "1763719200000",
        token_hash: "f00d",
        token_hint: "wxyz",
      }),
    ).toEqual({
      id: "acme",
      name: "Acme Corp",
      balance: 10_500_001,
      createdAt: 1_763_719_200_000,
      tokenHash: "f00d",
      tokenHint: "wxyz",
      billing: "prepaid",
      budgets: [],
      alertAt: null,
    });
  });

  it("reads an account's billing mode, windows and their thresholds; one stored before them is prepaid", () => {
    expect(
      parseAccount({
        id: "acme",
        billing: "budgeted",
        budget: "300000000000",
        period: "month",
        spent: "1500000",
        period_start: "1793491200000",
        budget_2: "20000000000",
        period_2: "day",
        spent_2: "0",
        period_start_2: "1795564800000",
        alert_at: "80,100",
      }),
    ).toMatchObject({
      billing: "budgeted",
      budgets: [
        { period: "month", budget: 300_000_000_000, spent: 1_500_000, periodStart: 1_793_491_200_000 },
        { period: "day", budget: 20_000_000_000, spent: 0, periodStart: 1_795_564_800_000 },
      ],
      alertAt: [80, 100],
    });
    expect(parseAccount({ id: "acme", billing: "free lunch" })).toMatchObject({
      billing: "prepaid",
      budgets: [],
    });
  });

  it("reads an account's fair-sharing settings, a negative priority included, and leaves out those it lacks", () => {
    expect(parseAccount({ id: "acme", weight: "3", priority: "-2", max_wait_ms: "1500" })).toMatchObject({
      weight: 3,
      priority: -2,
      maxWaitMs: 1500,
    });
    const plain = parseAccount({ id: "acme" });
    expect(plain).not.toHaveProperty("weight");
    expect(plain).not.toHaveProperty("priority");
    expect(plain).not.toHaveProperty("maxWaitMs");
  });

  it("names an account by its id when it has no name, and leaves out a token it does not have", () => {
    const account = parseAccount({ id: "acme", balance: "0", created_at: "1" });
    expect(account).toEqual({
      id: "acme",
      name: "acme",
      balance: 0,
      createdAt: 1,
      billing: "prepaid",
      budgets: [],
      alertAt: null,
    });
    expect(account).not.toHaveProperty("tokenHash");
    expect(parseAccount({ id: "acme", token_hash: "", token_hint: "" })).not.toHaveProperty("tokenHint");
  });

  it("is null for a hash without an id: an account that does not exist", () => {
    expect(parseAccount({})).toBeNull();
    expect(parseAccount({ balance: "100" })).toBeNull();
  });
});

describe("parseKey", () => {
  it("reads every field of a key", () => {
    expect(parseKey(KEY_HASH)).toEqual({
      id: "key_5m2x8q0c7w1r9t4z6b3n",
      accountId: "acme",
      name: "prod",
      hint: "a1b2",
      createdAt: 1_763_719_200_000,
      expiresAt: 1_763_805_600_000,
      budget: 5_000_000,
      period: "week",
      spent: 1_250_000,
      periodStart: 1_763_337_600_000,
      budgets: [{ period: "week", budget: 5_000_000, spent: 1_250_000, periodStart: 1_763_337_600_000 }],
      allowedModels: ["gpt-x", "llama-3"],
      logBodies: true,
      revokedAt: 1_763_720_000_000,
      disabledAt: 1_763_719_900_000,
      limits: { rpm: 60, tpm: 100_000, maxParallel: 4 },
      hash: "b".repeat(64),
      previousHash: "c".repeat(64),
      previousUntil: 1_763_723_600_000,
      alertAt: [50, 80, 100],
      sharing: { priority: 5, maxWaitMs: 2000 },
    });
  });

  it("reads a key stored before windows, with one budget, as a key with that one window (no rewrite)", () => {
    const { budget, period, spent, period_start } = KEY_HASH;
    const old = { id: "key_a", account: "acme", budget, period, spent, period_start };
    expect(parseKey(old)?.budgets).toEqual([
      { period: "week", budget: 5_000_000, spent: 1_250_000, periodStart: 1_763_337_600_000 },
    ]);
    // A key without a budget tracks its spent amount but has no window.
    expect(parseKey({ id: "key_a", account: "acme", period: "month", spent: "7" })?.budgets).toEqual([]);
  });

  it("reads every window of a key in slot order, and skips a slot without a budget", () => {
    const key = parseKey({
      ...KEY_HASH,
      budget_3: "90000000",
      period_3: "month",
      spent_3: "3000000",
      period_start_3: "1761955200000",
    });
    expect(key?.budgets.map((window) => [window.period, window.budget, window.spent])).toEqual([
      ["week", 5_000_000, 1_250_000],
      ["month", 90_000_000, 3_000_000],
    ]);
  });

  it("reads absent or empty optional fields as none: no expiry, no budget, every model, not revoked", () => {
    const key = parseKey({ id: "key_a", account: "acme", expires_at: "", budget: "", revoked_at: "" });
    expect(key).toMatchObject({
      name: "",
      hint: "",
      createdAt: 0,
      expiresAt: null,
      budget: null,
      spent: 0,
      periodStart: 0,
      allowedModels: null,
      revokedAt: null,
      disabledAt: null,
      limits: { rpm: null, tpm: null, maxParallel: null },
      hash: null,
      previousHash: null,
      previousUntil: null,
      alertAt: null,
      sharing: { priority: null, maxWaitMs: null },
    });
  });

  it("keeps bodies loggable unless log_bodies is 0, and falls back to a monthly period on an unknown one", () => {
    expect(parseKey({ ...KEY_HASH, log_bodies: "0" })?.logBodies).toBe(false);
    const { log_bodies: _, ...withoutSwitch } = KEY_HASH;
    expect(parseKey(withoutSwitch)?.logBodies).toBe(true);
    expect(parseKey({ ...KEY_HASH, period: "fortnight" })?.period).toBe("month");
    expect(parseKey({ ...KEY_HASH, period: "" })?.period).toBe("month");
    for (const period of ["day", "week", "month"])
      expect(parseKey({ ...KEY_HASH, period })?.period).toBe(period);
  });

  it("is null for a hash that lacks its id or its account", () => {
    expect(parseKey({})).toBeNull();
    expect(parseKey({ ...KEY_HASH, id: undefined as unknown as string })).toBeNull();
    const { account: _, ...withoutAccount } = KEY_HASH;
    expect(parseKey(withoutAccount)).toBeNull();
  });
});

describe("parseModels", () => {
  it("reads a JSON list of names as strings, and anything but a list as no models", () => {
    expect(parseModels('["a","b"]')).toEqual(["a", "b"]);
    expect(parseModels("[1, true]")).toEqual(["1", "true"]);
    expect(parseModels('{"a":1}')).toEqual([]);
    expect(parseModels('"a"')).toEqual([]);
    expect(parseModels("null")).toEqual([]);
  });
});
