// Which concerns one answer goes through, decided once per request from its plan (stages/send.ts builds the
// plan): the chain of relay handlers (relay-handler.ts) around the core relay, the exchange, which is the last
// of them. Only what the request needs is composed: no capture for a key that does not log bodies, no model
// list but for GET /v1/models of a key with a model list, no rate-limit headers without per-minute limits.
// Metering is in every chain: every answer is metered.
//
// The order, from the upstream to the client:
//   metering (reads along, or strips) → model list (holds, filters) → rate-limit headers → body capture → core
// The meter reads the upstream's bytes as they came; the model list filters the list the meter read; the
// capture, next to the client, keeps what the client got.

import type { ServerResponse } from "node:http";
import type { AdmittedRequest } from "../../core/request.js";
import { CapturingBodies } from "./body-capture.js";
import { Metering } from "./metering.js";
import { FilteringModelList } from "./model-list.js";
import { AddingRateLimitHeaders } from "./rate-limit-headers.js";
import type { RelayHandler } from "./relay-handler.js";
import type { ExchangeDeps, RelayPlan } from "./relay-plan.js";

/** What of the plan and of the exchange's shared settings the chain is made from. */
export type HandlerPlan = Pick<RelayPlan, "received" | "strip" | "filterModels" | "rateLimitHeaders">;
export type HandlerDeps = Pick<ExchangeDeps, "metering" | "captureBytes">;

/** The chain for one request, ending in `core`; returns its first handler. */
export function composeHandlers(
  core: RelayHandler,
  res: ServerResponse,
  request: Pick<AdmittedRequest, "logBodies">,
  plan: HandlerPlan,
  deps: HandlerDeps,
): RelayHandler {
  let head = core;
  if (request.logBodies) head = new CapturingBodies(head, deps.captureBytes, plan.received);
  if (plan.rateLimitHeaders !== null) head = new AddingRateLimitHeaders(head, plan.rateLimitHeaders);
  if (plan.filterModels !== null) head = new FilteringModelList(head, plan.filterModels, res);
  return new Metering(head, plan.strip, deps.metering, res);
}
