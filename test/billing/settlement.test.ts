// A request's settlement (billing/settlement.ts): which facts of the request the charging policy is given
// (whether the server took it, whether it ran to its end, the completion tokens its traffic implies), the
// charge written back on the request, and the record carried to the settle script — failed or not, dated by
// the request's end in the billing calendar, with its recent-requests entry. A release is the same record
// charging nothing. The policy's own table is test/billing/charge.test.ts's.

import { describe, expect, it } from "vitest";
import { releaseOf, type SettlementRules, settlementOf } from "../../src/billing/settlement.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import type { AdmittedRequest } from "../../src/core/request.js";
import { TOKEN_PRICE } from "../helpers/prices.js";
import { BODIES, ENDED, finishedRequest, type RequestFields } from "../helpers/requests.js";

/** 1 µ₽ per prompt token, 2 µ₽ per completion token. */
const PRICE = TOKEN_PRICE;

const RULES: SettlementRules = {
  calendar: new PeriodCalendar("UTC"),
  estimate: { reserveBytesPerToken: 1, usageBytesPerToken: 4 },
  overage: "absorb",
  logBodyBytes: 1024,
};

/** An admitted request that was forwarded, answered 200 and reported 10 prompt and 5 completion tokens. */
function admitted(over: RequestFields = {}): AdmittedRequest {
  return finishedRequest({
    reservationId: "res-1",
    usageClass: "generation",
    price: PRICE,
    reserved: 1_000_000,
    forwardedAt: ENDED - 100,
    upstreamStatus: 200,
    status: 200,
    usage: { prompt: 10, completion: 5 },
    metered: true,
    promptEstimate: 8,
    maxCompletionTokens: 50,
    maxPromptTokens: 1000,
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    ...over,
  }) as AdmittedRequest;
}

describe("settlementOf", () => {
  it("charges what the server reported, writes the charge on the request and carries it to the settle script", () => {
    const request = admitted();
    const settlement = settlementOf(request, RULES);
    expect(request).toMatchObject({
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      cost: 20,
      estimated: false,
      usageRejected: null,
      overage: 0,
    });
    expect(settlement).toMatchObject({
      ref: { accountId: "acme", keyId: "key_a" },
      keyName: "prod",
      reservationId: "res-1",
      requestId: "req-1",
      cost: 20,
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      failed: false,
      estimated: false,
      latencyMs: request.latencyMs,
      periods: RULES.calendar.at(ENDED),
      day: "2026-11-21",
      now: ENDED,
      model: "m",
      leaseHold: null,
    });
    expect(JSON.parse(settlement.logEntry)).toMatchObject({
      request_id: "req-1",
      prompt_tokens: 10,
      completion_tokens: 5,
      cost: 0.00002,
      usage_estimated: false,
    });
  });

  it("charges a free request (no usage class) nothing, whatever the server reported", () => {
    const request = admitted({ usageClass: null, cost: 99, promptTokens: 3 });
    const settlement = settlementOf(request, RULES);
    expect(settlement).toMatchObject({ cost: 0, promptTokens: 0, completionTokens: 0, estimated: false });
    expect(request).toMatchObject({ cost: 0, promptTokens: 0, usageRejected: null });
  });

  it.each<[string, RequestFields]>([
    ["never forwarded", { forwardedAt: 0 }],
    ["left unanswered by an unavailable upstream", { outcome: "upstream_unavailable", status: 502 }],
    ["timed out upstream", { outcome: "upstream_timeout", status: 504 }],
    ["stopped by a shutdown before an answer began", { outcome: "shutdown", upstreamStatus: 0, status: 503 }],
  ])("charges nothing for a request the server never took: %s", (_, over) => {
    const settlement = settlementOf(admitted(over), RULES);
    expect(settlement).toMatchObject({ cost: 0, promptTokens: 0, completionTokens: 0 });
  });

  it("charges a request stopped by a shutdown once its answer began, for what it produced", () => {
    const settlement = settlementOf(
      admitted({ outcome: "shutdown", usage: {}, responseBytes: 40, events: null }),
      RULES,
    );
    // 8 prompt tokens estimated, 40 bytes at 4 bytes a token
    expect(settlement).toMatchObject({ promptTokens: 8, completionTokens: 10, cost: 28, estimated: true });
    expect(settlement.failed).toBe(true);
  });

  it("estimates a cut-off response's completion from its streamed events, else its bytes, nothing when unmetered", () => {
    const cut = { outcome: "client_aborted", usage: {}, responseBytes: 40 } as const;
    expect(settlementOf(admitted({ ...cut, events: 3 }), RULES).completionTokens).toBe(3);
    expect(settlementOf(admitted({ ...cut, events: null }), RULES).completionTokens).toBe(10);
    expect(settlementOf(admitted({ ...cut, responseBytes: 41, events: null }), RULES).completionTokens).toBe(
      11,
    );
    expect(settlementOf(admitted({ ...cut, events: null, metered: false }), RULES)).toMatchObject({
      promptTokens: 8,
      completionTokens: 0,
      cost: 8,
    });
    const bytes = { ...RULES, estimate: { ...RULES.estimate, usageBytesPerToken: 2 } };
    expect(settlementOf(admitted({ ...cut, events: null }), bytes).completionTokens).toBe(20);
  });

  it("tells the policy a request that did not complete is cut off: its traffic may outweigh the report", () => {
    const request = { usage: { prompt: 10, completion: 5 }, events: 9 };
    expect(settlementOf(admitted(request), RULES)).toMatchObject({ completionTokens: 5, estimated: false });
    expect(settlementOf(admitted({ ...request, outcome: "client_aborted" }), RULES)).toMatchObject({
      promptTokens: 10,
      completionTokens: 9,
      cost: 28,
      estimated: true,
    });
  });

  it("lists a request as failed when it was answered 400 or more, or did not complete", () => {
    expect(settlementOf(admitted(), RULES).failed).toBe(false);
    expect(settlementOf(admitted({ status: 399 }), RULES).failed).toBe(false);
    expect(settlementOf(admitted({ status: 400, upstreamStatus: 400 }), RULES).failed).toBe(true);
    expect(settlementOf(admitted({ outcome: "client_aborted" }), RULES).failed).toBe(true);
  });

  it("dates the settlement by the request's end in the billing time zone", () => {
    const endedAt = Date.parse("2026-11-30T22:30:00Z");
    const moscow = { ...RULES, calendar: new PeriodCalendar("Europe/Moscow") };
    const settlement = settlementOf(admitted({ endedAt }), moscow);
    expect(settlement.day).toBe("2026-12-01");
    expect(settlement.now).toBe(endedAt);
    expect(settlement.periods.month.start).toBe(Date.parse("2026-11-30T21:00:00Z"));
  });

  it("carries the bodies for the key's list only when there are some and the log keeps any", () => {
    expect(settlementOf(admitted(), RULES).logEntryWithBodies).toBe("");
    const withBodies = settlementOf(admitted({ bodies: BODIES }), RULES).logEntryWithBodies;
    expect(JSON.parse(withBodies)).toMatchObject({
      request_body: '{"model":"m"}',
      response_body: '{"choices":[]}',
    });
    expect(
      settlementOf(admitted({ bodies: BODIES }), { ...RULES, logBodyBytes: 5 }).logEntryWithBodies,
    ).toContain('"request_body":"{\\"mod"');
    expect(settlementOf(admitted({ bodies: BODIES }), { ...RULES, logBodyBytes: 0 }).logEntryWithBodies).toBe(
      "",
    );
  });

  it("carries the request's lease hold and an empty request id when it has none", () => {
    const leaseHold = { leaseId: "lease-1", hold: 500, marker: "m1", share: 1 };
    const settlement = settlementOf(admitted({ requestId: null, leaseHold }), RULES);
    expect(settlement.requestId).toBe("");
    expect(settlement.leaseHold).toBe(leaseHold);
  });
});

describe("releaseOf", () => {
  it("charges nothing and clears a charge already written on the request", () => {
    const request = admitted({ status: 502, outcome: "internal_error" });
    settlementOf(request, RULES);
    request.usageRejected = "not_a_count";
    const released = releaseOf(request, RULES);
    expect(released).toMatchObject({
      reservationId: "res-1",
      cost: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      estimated: false,
      failed: true,
      now: ENDED,
    });
    expect(request).toMatchObject({
      cost: 0,
      promptTokens: 0,
      overage: 0,
      usageRejected: null,
      estimated: false,
    });
    expect(JSON.parse(released.logEntry)).toMatchObject({ cost: 0, outcome: "internal_error", status: 502 });
  });
});
