// The delivery policy as pure functions: which deliveries are due, what an attempt changes, the backoff, and
// when a delivery is given up.

import { describe, expect, it } from "vitest";
import {
  dueDeliveries,
  initialState,
  nextAttemptAt,
  overallStatus,
  type RetryPolicy,
  recordAttempt,
  retryDelayMs,
} from "../../src/alerts/delivery-plan.js";

const POLICY: RetryPolicy = { firstRetryMs: 30_000, maxRetryMs: 3_600_000, giveUpMs: 86_400_000 };
const T0 = Date.parse("2026-11-21T10:00:00Z");
const targets = [
  { id: "op_1", kind: "operator" as const, origin: "https://ops.example" },
  { id: "account", kind: "account" as const, origin: "https://acme.example" },
];
const failure = { ok: false, statusCode: 500, error: "HTTP 500" };
const success = { ok: true, statusCode: 204, error: null };

describe("retryDelayMs", () => {
  it("doubles from the first retry up to the cap, each delay cut by up to a quarter at random", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, POLICY, 0))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000,
    ]);
    expect(retryDelayMs(8, POLICY, 0)).toBe(3_600_000);
    expect(retryDelayMs(1000, POLICY, 0)).toBe(3_600_000);
    expect(retryDelayMs(1, POLICY, 0.999_999)).toBe(22_500);
    expect(retryDelayMs(1, POLICY, 0.5)).toBe(26_250);
  });
});

describe("an event's deliveries", () => {
  it("start due at once, each endpoint on its own", () => {
    const state = initialState(targets);
    expect(dueDeliveries(state, T0).map((d) => d.endpoint)).toEqual(["op_1", "account"]);
    expect(nextAttemptAt(state, T0)).toBe(T0);
    expect(overallStatus(state)).toBe("pending");
  });

  it("retry only the endpoint that failed, at its retry time", () => {
    const state = initialState(targets);
    const [op, account] = state.endpoints;
    expect(recordAttempt(op!, success, T0, T0, POLICY, 0)).toBe("delivered");
    expect(recordAttempt(account!, failure, T0, T0, POLICY, 0)).toBe("retried");
    expect(account).toMatchObject({
      attempts: 1,
      status_code: 500,
      error: "HTTP 500",
      next_attempt_at: T0 + 30_000,
    });
    expect(dueDeliveries(state, T0 + 29_999)).toEqual([]);
    expect(dueDeliveries(state, T0 + 30_000).map((d) => d.endpoint)).toEqual(["account"]);
    expect(nextAttemptAt(state, T0)).toBe(T0 + 30_000);
    expect(recordAttempt(account!, success, T0 + 30_000, T0, POLICY, 0)).toBe("delivered");
    expect(account).toMatchObject({
      status: "delivered",
      attempts: 2,
      error: null,
      delivered_at: T0 + 30_000,
    });
    expect(nextAttemptAt(state, T0)).toBeNull();
    expect(overallStatus(state)).toBe("delivered");
  });

  it("give up once the next attempt would come more than giveUp after the event", () => {
    const state = initialState([targets[1]!]);
    const [delivery] = state.endpoints;
    let now = T0;
    let result = "retried";
    while (result === "retried") {
      result = recordAttempt(delivery!, failure, now, T0, POLICY, 0);
      if (delivery!.next_attempt_at !== null) now = delivery!.next_attempt_at;
    }
    expect(result).toBe("failed");
    expect(now).toBeLessThanOrEqual(T0 + POLICY.giveUpMs);
    // 30 s … 32 min (7 attempts, 63.5 min in all), then hourly until 24 h: 30 attempts.
    expect(delivery).toMatchObject({ status: "failed", attempts: 30, next_attempt_at: null });
    expect(overallStatus(state)).toBe("failed");
    expect(nextAttemptAt(state, now)).toBeNull();
  });

  it("with no endpoint at all, are done", () => {
    const state = initialState([]);
    expect(nextAttemptAt(state, T0)).toBeNull();
    expect(overallStatus(state)).toBe("no_endpoints");
  });
});
