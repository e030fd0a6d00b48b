// Forwarding: everything the gateway does not answer itself goes through here, in one direction —
// authenticate (cached mapping), classify the endpoint (refusing the model server's management switches),
// read and check the body within its limits, find the model and the worst case, admit it on the replica's
// admission lease when that covers it, else reserve it in Redis (the one round trip before forwarding),
// then hand the request to an Exchange, which streams it to the upstream with http-proxy-3 and settles it
// when it ends. Once a request is admitted it is settled or released, whatever fails afterwards.

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { estimatedPromptTokens, NOTHING, worstCase } from "../billing/estimate.js";
import type { LeaseAdmission } from "../billing/leases.js";
import { asGatewayError, type ErrorFormat, GatewayError } from "../core/errors.js";
import type { KeyRef } from "../core/key-ref.js";
import type { ModelCheck } from "../core/model-check.js";
import type { ModelPrice } from "../core/price.js";
import { isConnectionError } from "../core/redis-errors.js";
import { checkDeclaredLength, readBody } from "../http/body.js";
import { errorFormatOf, sendError } from "../http/respond.js";
import { pathOf } from "../http/url-path.js";
import { refusalRecord } from "../observability/request-record.js";
import type { Refusal, Reservation, ReserveInput } from "../store/billing-store.js";
import { bodyEdits, withFields } from "./body-rewrite.js";
import type { Forwarder, GatewayContext } from "./context.js";
import { type Endpoint, type FieldPath, pathNotAllowed } from "./endpoints.js";
import { Exchange } from "./exchange.js";
import { prepareUpstreamHeaders } from "./headers.js";
import { modelOfPath } from "./model-list.js";
import { rateLimitHeaders } from "./rate-limit-headers.js";
import { refusalError } from "./refusals.js";
import { type Released, submitRelease } from "./release.js";
import { inspectRequest, type RequestFacts, valueAt } from "./request-facts.js";
import { createUpstreamProxy } from "./upstream-proxy.js";

export interface ForwardingProxy {
  forward: Forwarder;
  /** Stops forwarding new requests (they get 503 and go to another replica); those in flight go on. */
  stopForwarding(): void;
  close(): void;
}

export function createForwarder(ctx: GatewayContext): ForwardingProxy {
  const { config, stores } = ctx;
  const upstream = createUpstreamProxy(config.upstream);
  const upstreamAuthorization = config.upstream.apiKey ? `Bearer ${config.upstream.apiKey}` : undefined;
  let forwarding = true;
  const reservationTtlMs = config.billing.reservationTtlSeconds * 1000;

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    arrivedAt: number,
    secure: boolean,
  ) {
    const path = pathOf(req.url);
    const method = req.method ?? "GET";
    const errorFormat = errorFormatOf(path);
    let ref: KeyRef | null = null;
    let model: string | null = null;
    const tracked = ctx.tracker.begin();
    try {
      if (!forwarding)
        throw new GatewayError("service_unavailable", "The gateway is shutting down; retry the request.");
      const credential = await ctx.authenticator.resolve(req.headers);
      ref = credential.ref;
      const endpoint = ctx.endpoints.classify(method, path);
      if (endpoint.class === "management") throw pathNotAllowed(method, path);
      checkDeclaredLength(req, config.limits.maxBodyBytes);
      const body = await readBody(req, config.limits.maxBodyBytes);
      const facts = await inspectRequest(body, req.headers["content-type"], endpoint, config.limits);
      const pathModel = method === "GET" ? modelOfPath(path) : null;
      const check: ModelCheck = pathModel !== null ? { kind: "named", model: pathModel } : facts.model;
      model = check.kind === "named" ? check.model : null;
      const price = ctx.pricing.priceFor(model);
      checkCapsFit(facts, price, model);
      // A request without a body, or one that only counts tokens, is never reserved or charged.
      const usageClass = body.length === 0 || endpoint.class === "free" ? null : endpoint.class;
      const cap = facts.maxOutputTokens ?? price.maxOutputTokens;
      const worst = usageClass
        ? worstCase(usageClass, facts.prompt, cap, facts.choices, price, config.estimate)
        : NOTHING;
      const now = stores.now();
      const periods = stores.calendar.at(now);
      const reservationId = randomUUID();
      const admission = ctx.leases?.admit(ref, credential.hash, check, worst.amount) ?? null;
      const reserveInput: ReserveInput = {
        reservationId,
        amount: worst.amount,
        tokens: worst.promptTokens + worst.completionTokens,
        keyHash: credential.hash,
        now,
        periods,
        expiresAt: now + reservationTtlMs,
        model: check,
      };
      const request = { requestId, method, path, model, arrivedAt };
      let reservation = admission
        ? leasedReservation(admission)
        : await reserveOrRelease(ctx, ref, reserveInput, request);
      const reclaim = reclaimable(reservation);
      if (reclaim !== null && (await ctx.leases?.reclaim(ref, reclaim === "balance"))) {
        // Other replicas' leases held part of what this request needs: they were asked to give back what
        // they do not use, and the request is reserved once more.
        reservation = await reserveOrRelease(ctx, ref, reserveInput, request);
      }
      if (reservation.expired > 0) ctx.observer.expiredReservations(reservation.expired);
      if (!reservation.ok) throw refusalError(reservation, worst, price, check, periods);
      tracked.key = {
        accountId: ref.accountId,
        keyId: ref.keyId,
        keyName: reservation.keyName,
        maxParallel: reservation.maxParallel,
      };

      // From here on the reservation exists: whatever fails before the exchange takes over releases it.
      try {
        const askUsage =
          config.upstream.injectStreamUsage &&
          endpoint.streamUsage &&
          facts.json !== null &&
          facts.stream &&
          !facts.asksForUsage;
        const forwarded = forwardedBody(body, facts, endpoint, usageClass === "generation", cap, askUsage);
        const filterModels = method === "GET" && path === "/v1/models" ? reservation.allowedModels : null;
        prepareUpstreamHeaders(req, {
          requestId,
          callerToken: credential.token,
          upstreamAuthorization,
          bodyLength: forwarded.length,
          identityEncoding: askUsage || filterModels !== null,
          protocol: secure ? "https" : "http",
        });
        new Exchange(req, res, ctx, {
          requestId,
          arrivedAt,
          method,
          ref,
          keyName: reservation.keyName,
          logBodies: reservation.logBodies,
          model,
          path,
          errorFormat,
          endpointClass: body.length === 0 ? "free" : endpoint.class,
          usageClass,
          price,
          reservationId,
          lease: admission,
          reserved: worst.amount,
          received: body,
          body: forwarded,
          strip: askUsage ? { everyChunk: facts.continuousUsage } : null,
          filterModels,
          promptEstimate: usageClass ? estimatedPromptTokens(facts.prompt, price, config.estimate) : 0,
          maxCompletionTokens:
            usageClass === "generation" ? cap * facts.choices : usageClass === "input-only" ? 0 : null,
          maxPromptTokens: price.contextTokens ?? config.billing.maxPromptTokens,
          rateLimitHeaders: rateLimitHeaders(reservation.rpm, reservation.tpm),
          tracked,
        }).start(upstream.proxy);
      } catch (error) {
        submitRelease(ctx, {
          ref,
          reservationId,
          requestId,
          method,
          path,
          model,
          arrivedAt,
          outcome: "internal_error",
          status: 500,
          keyName: reservation.keyName,
          lease: admission,
        });
        throw error;
      }
    } catch (error) {
      refuse(ctx, res, error, errorFormat, { requestId, method, path, arrivedAt, model, ref });
      ctx.tracker.end(tracked);
    }
  }

  return {
    forward: (req, res, requestId, arrivedAt, secure) => void forward(req, res, requestId, arrivedAt, secure),
    stopForwarding: () => {
      forwarding = false;
    },
    close: () => upstream.close(),
  };
}

/** Answers a request the gateway will not forward with its error, and reports the refusal. */
function refuse(
  ctx: GatewayContext,
  res: ServerResponse,
  error: unknown,
  errorFormat: ErrorFormat,
  request: {
    requestId: string;
    method: string;
    path: string;
    arrivedAt: number;
    model: string | null;
    ref: KeyRef | null;
  },
): void {
  if (res.destroyed) return; // the client is gone; there is no one to answer
  const failure = asGatewayError(error);
  if (failure.status >= 500)
    ctx.logger.error({ request_id: request.requestId, err: failure.cause ?? failure }, "request failed");
  // After refusing a body half-way, close the connection rather than read the rest of it.
  if (failure.code === "payload_too_large") res.shouldKeepAlive = false;
  sendError(res, failure, { format: errorFormat });
  ctx.observer.refused(refusalRecord(failure, { ...request, endedAt: ctx.stores.now() }));
}

/**
 * Reserves the request's worst case. When the reply is lost (Redis stalled, the connection dropped) the
 * script may have run all the same: what it may hold is released now, not after its expiry.
 */
async function reserveOrRelease(
  ctx: GatewayContext,
  ref: KeyRef,
  input: ReserveInput,
  request: Pick<Released, "requestId" | "method" | "path" | "model" | "arrivedAt">,
): Promise<Reservation | Refusal> {
  try {
    return await ctx.stores.billing.reserve(ref, input);
  } catch (error) {
    if (isConnectionError(error)) {
      submitRelease(ctx, {
        ...request,
        ref,
        reservationId: input.reservationId,
        outcome: "redis_unavailable",
        status: 503,
      });
    }
    throw error;
  }
}

/** A lease admission as the rest of the request path sees a reservation (leased keys have no limits). */
function leasedReservation(admission: LeaseAdmission) {
  return {
    ok: true as const,
    expired: 0,
    keyName: admission.keyName,
    logBodies: admission.logBodies,
    allowedModels: admission.allowedModels,
    rpm: null,
    tpm: null,
    maxParallel: null,
  };
}

/** A refusal for the budget or the balance while something was reserved: leases may be holding it. */
function reclaimable(
  reservation: Reservation | Refusal | ReturnType<typeof leasedReservation>,
): "key" | "balance" | null {
  if (reservation.ok || !("code" in reservation)) return null;
  if (reservation.code === "budget_exceeded" && (reservation.keyReserved ?? 0) > 0) return "key";
  if (reservation.code === "insufficient_balance" && (reservation.accountReserved ?? 0) > 0) return "balance";
  return null;
}

/** Refuses an output cap above the model's context length, when the operator has set one. */
function checkCapsFit(facts: RequestFacts, price: ModelPrice, model: string | null): void {
  const limit = price.contextTokens;
  if (limit === null || facts.maxOutputTokens === null || facts.maxOutputTokens <= limit) return;
  const field = facts.capsSet.map((path) => path.join(".")).join(" or ");
  throw new GatewayError(
    "invalid_request",
    `${field} must be a whole number from 1 to ${limit}, the context length of ${model === null ? "the default model" : `model "${model}"`}; got ${facts.maxOutputTokens}.`,
  );
}

/**
 * The body as forwarded: a generation gets the cap the reservation assumed in the field its servers read,
 * when it does not set that field itself; a stream the gateway wants usage for asks for it.
 */
function forwardedBody(
  body: Buffer,
  facts: RequestFacts,
  endpoint: Endpoint,
  generation: boolean,
  cap: number,
  askUsage: boolean,
): Buffer {
  if (facts.json === null) return body;
  const target = generation ? capTargetOf(endpoint, facts.json.value) : null;
  const targetSet = target !== null && facts.capsSet.some((path) => path.join(".") === target.join("."));
  const edits = bodyEdits(target, targetSet, cap, askUsage);
  return edits.length === 0 ? body : withFields(body, facts.json.scan, edits);
}

/** The first of the endpoint's cap targets whose enclosing object the body has, else the first. */
function capTargetOf(endpoint: Endpoint, body: Record<string, unknown>): FieldPath | null {
  const targets = endpoint.capTargets;
  const present = targets.find((path) => {
    const parent = path.length === 1 ? body : valueAt(body, path.slice(0, -1));
    return typeof parent === "object" && parent !== null && !Array.isArray(parent);
  });
  return present ?? targets[0] ?? null;
}
