// The JSON shapes clients, the CLI and the admin API see: rubles as numbers exact to the micro-ruble, times
// in ISO-8601 UTC, a key's state and its current period's spending judged at the time asked, and a day's
// usage summed from the latency buckets.

import { describe, expect, it } from "vitest";
import { PeriodCalendar } from "../../src/core/periods.js";
import { ClientKey, ListedKey } from "../../src/services/key-schema.js";
import { DailyUsage } from "../../src/services/usage-schema.js";
import {
  accountView,
  budgetView,
  dailyUsageView,
  iso,
  keyListView,
  keyState,
  keyView,
  requestsOf,
} from "../../src/services/views.js";
import { accountRecord, keyRecord } from "../helpers/records.js";

const utc = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");
const CLOCK = { now: () => NOW, calendar: utc };

describe("keyState", () => {
  it("is active, expired from the expiry instant on, and revoked whatever the expiry", () => {
    const expiresAt = NOW + 1000;
    expect(keyState(keyRecord({ expiresAt }), NOW)).toBe("active");
    expect(keyState(keyRecord({ expiresAt }), expiresAt)).toBe("expired");
    expect(keyState(keyRecord({ expiresAt, revokedAt: NOW - 1 }), NOW)).toBe("revoked");
    expect(keyState(keyRecord({ expiresAt, revokedAt: NOW - 1 }), expiresAt + 1)).toBe("revoked");
  });

  it("is rotating while a replaced value's grace period runs, disabled while switched off; final states win", () => {
    const previousUntil = NOW + 1000;
    expect(keyState(keyRecord({ previousUntil }), NOW)).toBe("rotating");
    expect(keyState(keyRecord({ previousUntil }), previousUntil)).toBe("active");
    expect(keyState(keyRecord({ disabledAt: NOW - 1 }), NOW)).toBe("disabled");
    expect(keyState(keyRecord({ disabledAt: NOW - 1, previousUntil }), NOW)).toBe("disabled");
    expect(keyState(keyRecord({ disabledAt: NOW - 1, expiresAt: NOW }), NOW)).toBe("expired");
    expect(keyState(keyRecord({ disabledAt: NOW - 1, revokedAt: NOW - 1 }), NOW)).toBe("revoked");
  });
});

describe("budgetView", () => {
  it("is null for a key without a budget", () => {
    expect(budgetView(keyRecord(), NOW, utc)).toBeNull();
  });

  it("shows the budget, the current spending, what remains and when it resets, in rubles", () => {
    const key = keyRecord({
      budget: 5_000_000,
      spent: 1_250_001,
      period: "week",
      periodStart: Date.parse("2026-11-16T00:00:00Z"),
    });
    expect(budgetView(key, NOW, utc)).toEqual({
      period: "week",
      amount: 5,
      spent: 1.250001,
      remaining: 3.749999,
      resets_at: "2026-11-23T00:00:00.000Z",
      initial: 5,
      reset_at: "2026-11-23T00:00:00.000Z",
    });
  });

  it("shows nothing remaining, never less, when a reported overage took spending past the budget", () => {
    const key = keyRecord({
      budget: 1_000_000,
      spent: 1_500_000,
      period: "day",
      periodStart: Date.parse("2026-11-21T00:00:00Z"),
    });
    expect(budgetView(key, NOW, utc)).toMatchObject({ spent: 1.5, remaining: 0 });
  });

  it("shows the whole budget again once the period has turned over", () => {
    const key = keyRecord({
      budget: 1_000_000,
      spent: 900_000,
      period: "day",
      periodStart: Date.parse("2026-11-20T00:00:00Z"),
    });
    expect(budgetView(key, NOW, utc)).toMatchObject({
      spent: 0,
      remaining: 1,
      resets_at: "2026-11-22T00:00:00.000Z",
    });
  });
});

describe("keyView and keyListView", () => {
  it("show a key to its client with ISO times, and to its owner with the revocation time as well", () => {
    const key = keyRecord({
      expiresAt: Date.parse("2027-01-01T00:00:00Z"),
      allowedModels: ["m"],
      logBodies: false,
      revokedAt: Date.parse("2026-11-20T12:00:00Z"),
    });
    const view = keyView(key, NOW, utc);
    expect(view).toEqual({
      id: key.id,
      name: "prod",
      account_id: "acme",
      created_at: "2026-11-01T08:00:00.000Z",
      expires_at: "2027-01-01T00:00:00.000Z",
      allowed_models: ["m"],
      log_bodies: false,
      budget: null,
      budgets: [],
      currency: "RUB",
      state: "revoked",
      grace_until: null,
      disabled_at: null,
      limits: { rpm: null, tpm: null, max_parallel: null },
    });
    expect(view).not.toHaveProperty("hint");
    const rotating = keyRecord({
      previousUntil: NOW + 1000,
      disabledAt: NOW - 1000,
      limits: { rpm: 1, tpm: 2, maxParallel: 3 },
    });
    expect(keyView(rotating, NOW, utc)).toMatchObject({
      state: "disabled",
      grace_until: "2026-11-21T10:00:01.000Z",
      disabled_at: "2026-11-21T09:59:59.000Z",
      limits: { rpm: 1, tpm: 2, max_parallel: 3 },
    });
    // Once its grace period is over, the replaced value's end is no longer shown.
    expect(keyView(rotating, NOW + 1000, utc).grace_until).toBeNull();
    expect(keyListView(key, NOW, utc)).toEqual({ ...view, revoked_at: "2026-11-20T12:00:00.000Z" });
    expect(keyListView(keyRecord(), NOW, utc)).toMatchObject({ expires_at: null, revoked_at: null });
  });

  it("write exactly the fields of their schemas, ClientKey and ListedKey, in the schemas' order", () => {
    expect(Object.keys(keyView(keyRecord(), NOW, utc))).toEqual(Object.keys(ClientKey.shape));
    expect(Object.keys(keyListView(keyRecord(), NOW, utc))).toEqual(Object.keys(ListedKey.shape));
  });
});

describe("accountView", () => {
  it("shows the balance in rubles and leaves the dashboard token out", () => {
    expect(
      accountView(accountRecord({ balance: 4_987_650_000, tokenHash: "f00d", tokenHint: "wxyz" }), CLOCK),
    ).toEqual({
      id: "acme",
      name: "Acme Corp",
      balance: 4987.65,
      currency: "RUB",
      created_at: "2026-11-01T08:00:00.000Z",
      sharing: { weight: 1, priority: null, max_wait_ms: null },
      billing: "prepaid",
      budgets: [],
      alert_at: null,
      budget_alert_at: null,
    });
  });

  it("shows an account's windows each in its current period, spent from zero once a period has turned", () => {
    const account = accountRecord({
      billing: "budgeted",
      budgets: [
        {
          period: "month",
          budget: 300_000_000_000,
          spent: 1_000_000,
          periodStart: Date.parse("2026-11-01T00:00:00Z"),
        },
        // Last charged yesterday: today's window has spent nothing yet, though Redis still says 5.
        {
          period: "day",
          budget: 10_000_000_000,
          spent: 5_000_000,
          periodStart: Date.parse("2026-11-20T00:00:00Z"),
        },
      ],
      alertAt: [50],
    });
    expect(accountView(account, CLOCK)).toMatchObject({
      billing: "budgeted",
      budgets: [
        {
          period: "month",
          amount: 300_000,
          spent: 1,
          remaining: 299_999,
          resets_at: "2026-12-01T00:00:00.000Z",
        },
        { period: "day", amount: 10_000, spent: 0, remaining: 10_000, resets_at: "2026-11-22T00:00:00.000Z" },
      ],
      alert_at: [50],
      budget_alert_at: [50],
    });
  });
});

describe("a key's windows", () => {
  it("shows every window in budgets, and the first as the deprecated budget with its old names too", () => {
    const key = keyRecord({
      budget: 1_000_000,
      period: "day",
      spent: 250_000,
      periodStart: Date.parse("2026-11-21T00:00:00Z"),
      budgets: [
        { period: "day", budget: 1_000_000, spent: 250_000, periodStart: Date.parse("2026-11-21T00:00:00Z") },
        {
          period: "month",
          budget: 20_000_000,
          spent: 4_000_000,
          periodStart: Date.parse("2026-11-01T00:00:00Z"),
        },
      ],
    });
    const view = keyView(key, NOW, utc);
    expect(view.budgets).toEqual([
      { period: "day", amount: 1, spent: 0.25, remaining: 0.75, resets_at: "2026-11-22T00:00:00.000Z" },
      { period: "month", amount: 20, spent: 4, remaining: 16, resets_at: "2026-12-01T00:00:00.000Z" },
    ]);
    expect(view.budget).toEqual({ ...view.budgets[0], initial: 1, reset_at: "2026-11-22T00:00:00.000Z" });
  });
});

describe("a day's usage", () => {
  it("counts each request once, in its latency bucket, and nothing else as requests", () => {
    expect(
      requestsOf({ lat_le_50: 2, lat_le_1000: 1, lat_le_inf: 1, cost: 500, errors: 3, prompt_tokens: 9 }),
    ).toBe(4);
    expect(requestsOf({})).toBe(0);
  });

  it("shows tokens, cost in rubles, errors, the mean latency and the buckets holding the median and the 95th percentile", () => {
    const view = dailyUsageView("2026-11-21", {
      lat_le_50: 10,
      lat_le_250: 8,
      lat_le_5000: 2,
      latency_ms_sum: 3001,
      prompt_tokens: 1000,
      cached_tokens: 600,
      completion_tokens: 500,
      cost: 1_500_001,
      errors: 1,
      estimated: 2,
    });
    expect(view).toEqual({
      date: "2026-11-21",
      requests: 20,
      prompt_tokens: 1000,
      cached_tokens: 600,
      completion_tokens: 500,
      cost: 1.500001,
      errors: 1,
      estimated: 2,
      avg_latency_ms: 150,
      p50_latency_ms: 50,
      p95_latency_ms: 5000,
    });
    expect(DailyUsage.strict().parse(view)).toEqual(view);
  });

  it("has no latency figures without requests, and no bound for a percentile beyond the last bucket", () => {
    expect(dailyUsageView("2026-11-21", {})).toMatchObject({
      requests: 0,
      cost: 0,
      avg_latency_ms: null,
      p50_latency_ms: null,
      p95_latency_ms: null,
    });
    expect(
      dailyUsageView("2026-11-21", { lat_le_100: 1, lat_le_inf: 1, latency_ms_sum: 400_100 }),
    ).toMatchObject({
      requests: 2,
      p50_latency_ms: 100,
      p95_latency_ms: null,
    });
  });
});

describe("iso", () => {
  it("writes epoch milliseconds as ISO-8601 UTC", () => {
    expect(iso(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(iso(NOW)).toBe("2026-11-21T10:00:00.000Z");
  });
});
