// A request's settlement, from the request itself: one function for every request the gateway admitted
// (settlementOf), and the same record with the charge left at nothing for a release (releaseOf). The
// charging policy (charge.ts) weighs the facts the exchange gathered and its verdict is written on the request
// (where the log line and the metrics read it); the settlement carries that charge and the request's entry
// for the key's recent-requests list to the settle script. A release — a request that ends before it could be
// metered, or whose charge could not be worked out — is the same record with the charge left at nothing.

import type { Config } from "../config/schema.js";
import type { UsageClass } from "../core/endpoint-classes.js";
import type { PeriodCalendar } from "../core/periods.js";
import type { AdmittedRequest, ReservedRequest } from "../core/request.js";
import type { Settlement } from "../store/billing/settle-script.js";
import { recentRequestJson } from "../store/usage/request-log-store.js";
import { type Charge, charge, type OveragePolicy } from "./charge.js";
import { estimatedCompletionTokens } from "./estimate.js";

/** What settling a request depends on besides the request: the configuration's rules and the calendar. */
export interface SettlementRules {
  calendar: PeriodCalendar;
  estimate: Config["estimate"];
  overage: OveragePolicy;
  /** requestLog.maxBodyBytes: the bodies the key's recent-requests list keeps, when the key logs them. */
  logBodyBytes: number;
}

/**
 * The request's settlement: its charge by the policy (nothing for a free request) written on the request and
 * carried to the settle script with the request's recent-requests entry. The request has ended
 * (GatewayRequest.end): its times are what the settlement records.
 */
export function settlementOf(request: AdmittedRequest, rules: SettlementRules): Settlement {
  const { usageClass } = request;
  return recorded(request, rules, usageClass === null ? null : chargeOf(request, usageClass, rules));
}

/** The settlement of a request released without a charge: what it holds is freed, it is listed as failed. */
export function releaseOf(request: ReservedRequest, rules: SettlementRules): Settlement {
  return recorded(request, rules, null);
}

function recorded(request: ReservedRequest, rules: SettlementRules, billed: Charge | null): Settlement {
  request.promptTokens = billed === null ? 0 : billed.tokens.promptTokens;
  request.completionTokens = billed === null ? 0 : billed.tokens.completionTokens;
  request.cachedTokens = billed === null ? 0 : billed.tokens.cachedTokens;
  request.cacheWriteTokens = billed === null ? 0 : billed.tokens.cacheWriteTokens;
  request.cost = billed === null ? 0 : billed.cost;
  request.estimated = billed === null ? false : billed.estimated;
  request.usageRejected = billed === null ? null : billed.rejected;
  request.overage = billed === null ? 0 : billed.overage;
  const { entry, withBodies } = recentRequestJson(request, rules.logBodyBytes);
  const { calendar } = rules;
  const ended = request.endedAt;
  return {
    ref: request.ref,
    keyName: request.keyName,
    reservationId: request.reservationId,
    requestId: request.requestId ?? "",
    logEntry: entry,
    logEntryWithBodies: withBodies,
    cost: request.cost,
    promptTokens: request.promptTokens,
    completionTokens: request.completionTokens,
    cachedTokens: request.cachedTokens,
    failed: request.status >= 400 || request.outcome !== "completed",
    estimated: request.estimated,
    latencyMs: request.latencyMs,
    periods: calendar.at(ended),
    day: calendar.dayOf(ended),
    now: ended,
    model: request.model,
    leaseHold: request.leaseHold,
  };
}

/** The facts of the request, weighed by the charging policy. */
function chargeOf(request: AdmittedRequest, usageClass: UsageClass, rules: SettlementRules): Charge {
  const { outcome, upstreamStatus } = request;
  return charge({
    usageClass,
    processed:
      request.forwardedAt > 0 &&
      outcome !== "upstream_unavailable" &&
      outcome !== "upstream_timeout" &&
      !(outcome === "shutdown" && upstreamStatus === 0),
    complete: outcome === "completed",
    status: upstreamStatus,
    reported: request.usage,
    estimate: {
      promptTokens: request.promptEstimate,
      completionTokens: request.metered
        ? estimatedCompletionTokens(request.responseBytes, request.events, rules.estimate)
        : 0,
    },
    maxCompletionTokens: request.maxCompletionTokens,
    maxPromptTokens: request.maxPromptTokens,
    price: request.price,
    reserved: request.reserved,
    overage: rules.overage,
  });
}
