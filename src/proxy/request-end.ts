// The end of a forwarded request, whatever way it ended: the charging policy says what it costs, the request
// becomes its one record, the settlement goes to the queue and the record to the observer. Whatever fails
// on the way, the reservation is settled or released, the request leaves the tracker, and nothing is thrown
// back into the event handler that ended it.

import { performance } from "node:perf_hooks";
import { type Charge, charge } from "../billing/charge.js";
import { estimatedCompletionTokens } from "../billing/estimate.js";
import { type RequestRecord, recentRequestJson } from "../observability/request-record.js";
import type { GatewayContext } from "./context.js";
import type { Ending, ForwardedRequest } from "./forwarded-request.js";
import { submitRelease } from "./release.js";

const NO_CHARGE: Charge = {
  tokens: { promptTokens: 0, completionTokens: 0 },
  cost: 0,
  estimated: false,
  rejected: null,
  overage: 0,
};

export function endRequest(ctx: GatewayContext, init: ForwardedRequest, ending: Ending): void {
  let billed: Charge;
  try {
    billed = chargeOf(ctx, init, ending);
  } catch (error) {
    // A bug of ours: release the reservation rather than charge on a guess, and say so.
    ctx.logger.error(
      { request_id: init.requestId, err: error },
      "could not work out the charge; the reservation is released",
    );
    billed = NO_CHARGE;
  }
  let record: RequestRecord | null = null;
  try {
    record = recordOf(ctx, init, ending, billed);
    const { entry, withBodies } = recentRequestJson(record, ctx.config.requestLog.maxBodyBytes);
    const now = record.endedAt;
    ctx.settlements.submit({
      ref: init.ref,
      keyName: init.keyName,
      ...(init.lease && { admission: init.lease }),
      input: {
        reservationId: init.reservationId,
        logEntry: entry,
        logEntryWithBodies: withBodies,
        cost: record.cost,
        promptTokens: record.promptTokens,
        completionTokens: record.completionTokens,
        failed: record.status >= 400 || record.outcome !== "completed",
        estimated: record.estimated,
        latencyMs: record.latencyMs,
        periods: ctx.stores.calendar.at(now),
        day: ctx.stores.calendar.dayOf(now),
        now,
        model: record.model,
      },
    });
  } catch (error) {
    ctx.logger.error(
      { request_id: init.requestId, err: error },
      "could not record the settlement; the reservation is released",
    );
    submitRelease(ctx, { ...init, outcome: ending.outcome, status: 500 });
  }
  ctx.tracker.end(init.tracked);
  if (record === null) return;
  try {
    ctx.observer.finished(record);
  } catch (error) {
    ctx.logger.error({ request_id: init.requestId, err: error }, "reporting a finished request failed");
  }
}

/** The facts of the request, weighed by the charging policy (billing/charge.ts). */
function chargeOf(ctx: GatewayContext, init: ForwardedRequest, ending: Ending): Charge {
  if (init.usageClass === null) return NO_CHARGE;
  const { outcome, metered } = ending;
  return charge({
    usageClass: init.usageClass,
    processed:
      ending.forwardedAt > 0 &&
      outcome !== "upstream_unavailable" &&
      outcome !== "upstream_timeout" &&
      !(outcome === "shutdown" && ending.upstreamStatus === 0),
    complete: outcome === "completed",
    status: ending.upstreamStatus,
    reported: metered?.result.usage ?? {},
    estimate: {
      promptTokens: init.promptEstimate,
      completionTokens: metered
        ? estimatedCompletionTokens(metered.bytes, metered.result.events, ctx.config.estimate)
        : 0,
    },
    maxCompletionTokens: init.maxCompletionTokens,
    maxPromptTokens: init.maxPromptTokens,
    price: init.price,
    reserved: init.reserved,
    overage: ctx.config.billing.overage,
  });
}

function recordOf(
  ctx: GatewayContext,
  init: ForwardedRequest,
  ending: Ending,
  billed: Charge,
): RequestRecord {
  const endedAt = performance.now();
  return {
    requestId: init.requestId,
    method: init.method,
    path: init.path,
    accountId: init.ref.accountId,
    keyId: init.ref.keyId,
    keyName: init.keyName,
    model: init.model,
    endpointClass: init.endpointClass,
    status: ending.status,
    outcome: ending.outcome,
    code: ending.code,
    promptTokens: billed.tokens.promptTokens,
    completionTokens: billed.tokens.completionTokens,
    cost: billed.cost,
    estimated: billed.estimated,
    usageRejected: billed.rejected,
    overage: billed.overage,
    reserved: init.reserved,
    admission: init.lease ? "lease" : "reserve",
    endedAt: ctx.stores.now(),
    latencyMs: endedAt - init.arrivedAt,
    upstreamTtfbMs: ending.firstByteAt > 0 ? ending.firstByteAt - ending.forwardedAt : null,
    gatewayMs: (ending.forwardedAt || endedAt) - init.arrivedAt,
    bodies: ending.capture?.bodies(init.received) ?? null,
  };
}
