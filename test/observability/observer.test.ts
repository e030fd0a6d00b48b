// The one place finished and refused requests and settlements are reported: their log lines, from the
// request, with bodies only under logging.bodies; their metrics; and never a throw back into the request
// path when a metric or a log write fails.

import { describe, expect, it } from "vitest";
import { PeriodCalendar } from "../../src/core/periods.js";
import type { GatewayRequest } from "../../src/core/request.js";
import type { GatewayMetrics } from "../../src/observability/gateway-metrics.js";
import { createObserver } from "../../src/observability/observer.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";
import { captureLogs } from "../helpers/logs.js";
import { requestWith } from "../helpers/requests.js";

type Call = [string, ...unknown[]];

/** Metrics that record what they are told. */
function recordingMetrics(failing = false): GatewayMetrics & { calls: Call[] } {
  const calls: Call[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      if (failing) throw new Error(`${name} broke`);
      calls.push([name, ...args]);
    };
  return {
    calls,
    registry: null,
    request: record("request"),
    settled: record("settled"),
    balance: record("balance"),
    settlementFailed: record("settlementFailed"),
    scriptError: record("scriptError"),
    settlementsUnreplicated: record("settlementsUnreplicated"),
    settlementReplayed: record("settlementReplayed"),
    settlementsGivenUp: record("settlementsGivenUp"),
    booksDrift: record("booksDrift"),
    redisOperation: record("redisOperation"),
    expiredReservations: record("expiredReservations"),
    alertEvent: record("alertEvent"),
    webhookDelivery: record("webhookDelivery"),
    identityEvent: record("identityEvent"),
  };
}

const bodies = {
  request: (limit: number) => "REQUEST".slice(0, limit),
  response: (limit: number) => "RESPONSE".slice(0, limit),
};

function finished(): GatewayRequest {
  return requestWith({
    requestId: "req-1",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    outcome: "completed",
    endedAt: 0,
    accountId: "acme",
    keyId: "key_a",
    cost: 26_000,
    bodies,
  });
}

const calendar = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");

function settlement(): Settlement {
  return {
    ref: { accountId: "acme", keyId: "key_a" },
    keyName: "prod",
    reservationId: "resv-1",
    logEntry: '{"request_id":"req-1"}',
    logEntryWithBodies: '{"request_id":"req-1","request_body":"SECRET PROMPT"}',
    model: null,
    cost: 26_000,
    promptTokens: 12,
    completionTokens: 7,
    failed: false,
    estimated: false,
    latencyMs: 100,
    periods: calendar.at(NOW),
    day: calendar.dayOf(NOW),
    now: NOW,
  };
}

describe("finished and refused requests", () => {
  it("log a finished request's line, with its bodies cut to logging.maxBodyBytes, and count it", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    const record = finished();
    createObserver(logger, metrics, { logBodies: 4 }).finished(record);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: "request",
        request_id: "req-1",
        cost_rub: 0.026,
        request_body: "REQU",
        response_body: "RESP",
      }),
    ]);
    expect(metrics.calls).toEqual([["request", record]]);
  });

  it("keep bodies off the line when logging.bodies is off", () => {
    const { logger, lines } = captureLogs();
    createObserver(logger, recordingMetrics(), { logBodies: null }).finished(finished());
    expect(lines[0]).not.toHaveProperty("request_body");
  });

  it("log a refusal's line without bodies whatever the setting, and count it", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    const refused = Object.assign(finished(), {
      outcome: "refused" as const,
      status: 403,
      code: "budget_exceeded" as const,
    });
    createObserver(logger, metrics, { logBodies: 100 }).refused(refused);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: "request refused", code: "budget_exceeded", status: 403 }),
    ]);
    expect(lines[0]).not.toHaveProperty("request_body");
    expect(metrics.calls).toEqual([["request", refused]]);
  });

  it("never let a failing metric reach the request path: the failure is logged instead", () => {
    const { logger, lines } = captureLogs();
    const observer = createObserver(logger, recordingMetrics(true), { logBodies: null });
    expect(() => observer.finished(finished())).not.toThrow();
    expect(() => observer.refused(Object.assign(finished(), { outcome: "refused" as const }))).not.toThrow();
    expect(() => observer.expiredReservations(2)).not.toThrow();
    expect(lines.filter((line) => line.level === 50).map((line) => [line.msg, line.err.message])).toEqual([
      ["reporting a finished request failed", "request broke"],
      ["reporting a refused request failed", "request broke"],
      ["reporting expired reservations failed", "expiredReservations broke"],
    ]);
  });
});

describe("reservations and settlements", () => {
  it("count and warn about reservations that expired unsettled", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    createObserver(logger, metrics, { logBodies: null }).expiredReservations(3);
    expect(metrics.calls).toEqual([["expiredReservations", 3]]);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, count: 3, msg: "released reservations that expired unsettled" }),
    ]);
  });

  it("report a settlement's balance and budget, with the end of the key's own period", () => {
    const metrics = recordingMetrics();
    const observer = createObserver(captureLogs().logger, metrics, { logBodies: null });
    observer.settled(settlement(), {
      duplicate: false,
      balance: 9_974_000,
      budget: 5_000_000,
      spent: 26_000,
      period: "week",
    });
    observer.settled(settlement(), { duplicate: false, balance: 9_948_000, budget: null, spent: 0 });
    observer.settled(settlement(), {
      duplicate: false,
      balance: 9_900_000,
      budget: 1_000_000,
      spent: 48_000,
      period: "day",
      windows: {
        key: [
          { period: "day", budget: 1_000_000, spent: 48_000 },
          { period: "month", budget: 9_000_000, spent: 100_000 },
        ],
        account: [],
      },
    });
    const periods = calendar.at(NOW);
    expect(metrics.calls).toEqual([
      [
        "settled",
        "acme",
        "key_a",
        "prod",
        9_974_000,
        [{ period: "week", budget: 5_000_000, spent: 26_000, resetAt: periods.week.end }],
      ],
      ["settled", "acme", "key_a", "prod", 9_948_000, []],
      [
        "settled",
        "acme",
        "key_a",
        "prod",
        9_900_000,
        [
          { period: "day", budget: 1_000_000, spent: 48_000, resetAt: periods.day.end },
          { period: "month", budget: 9_000_000, spent: 100_000, resetAt: periods.month.end },
        ],
      ],
    ]);
  });

  it("report nothing for a duplicate settlement, which changed nothing", () => {
    const metrics = recordingMetrics();
    createObserver(captureLogs().logger, metrics, { logBodies: null }).settled(settlement(), {
      duplicate: true,
    });
    expect(metrics.calls).toEqual([]);
  });

  it("write a delayed settlement's retry at debug level only: the wait is one warning, and one line when it ends", () => {
    const { logger, lines } = captureLogs();
    const observer = createObserver(logger, recordingMetrics(), { logBodies: null });
    observer.waiting("redis", 3);
    for (let i = 0; i < 5; i++) observer.retrying(settlement(), new Error("Connection is closed."));
    observer.recovered(1500);
    expect(lines.filter((line) => line.level >= 30)).toEqual([
      expect.objectContaining({ level: 40, reason: "redis", settlements: 3 }),
      expect.objectContaining({ level: 30, waited_ms: 1500 }),
    ]);
    expect(lines.filter((line) => line.level === 20)).toHaveLength(5);
    expect(lines[1]).toMatchObject({ reservation_id: "resv-1", err: "Connection is closed." });
  });

  it("count settlements no replica acknowledged each time, with no line of their own", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    const observer = createObserver(logger, metrics, { logBodies: null });
    observer.unreplicated([settlement(), settlement()]);
    observer.unreplicated([settlement()]);
    expect(metrics.calls).toEqual([
      ["settlementsUnreplicated", 2],
      ["settlementsUnreplicated", 1],
    ]);
    expect(lines).toEqual([]);
  });

  it("log settlements given up at error level, with their accounts and µ₽ but no bodies, and count them", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    createObserver(logger, metrics, { logBodies: 1000 }).givenUp([
      { ...settlement(), requestId: "req-1" },
      { ...settlement(), requestId: "req-2", cost: 4000 },
    ]);
    expect(metrics.calls).toEqual([["settlementsGivenUp", 2]]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        settlements: 2,
        accounts: ["acme"],
        cost_micros: 30_000,
        request_ids: ["req-1", "req-2"],
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain("SECRET PROMPT");
  });

  it("log a dropped settlement with what reconciliation needs, but never its bodies, and count it", () => {
    const { logger, lines } = captureLogs();
    const metrics = recordingMetrics();
    createObserver(logger, metrics, { logBodies: 1000 }).failed(settlement(), new Error("ERR script failed"));
    expect(metrics.calls).toEqual([["settlementFailed"]]);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 50,
      msg: "settlement refused by Redis; recorded here for reconciliation",
      settlement: {
        accountId: "acme",
        keyId: "key_a",
        reservationId: "resv-1",
        cost: 26_000,
        logEntry: '{"request_id":"req-1"}',
      },
      err: expect.objectContaining({ message: "ERR script failed" }),
    });
    expect(JSON.stringify(line)).not.toContain("SECRET PROMPT");
  });

  it("log a settlement hook that failed", () => {
    const { logger, lines } = captureLogs();
    createObserver(logger, recordingMetrics(), { logBodies: null }).hookFailed(
      "settled",
      new Error("gauge broke"),
    );
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        hook: "settled",
        msg: "a settlement hook failed",
        err: expect.objectContaining({ message: "gauge broke" }),
      }),
    ]);
  });
});
