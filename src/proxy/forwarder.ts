// Forwarding: everything the gateway does not answer itself goes through here, in one direction —
// authenticate (cached mapping), classify the endpoint (refusing the model server's management switches),
// read and check the body within its limits, find the model and the worst case, admit it on the replica's
// admission lease when that covers it, else reserve it in Redis (the one round trip before forwarding),
// then hand the request to an Exchange, which streams it to the upstream with http-proxy-3 and settles it
// when it ends. Once a request is admitted it is settled or released, whatever fails afterwards.

import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import type { Authenticator } from "../auth/authenticator.js";
import { estimatedPromptTokens, NOTHING, worstCase } from "../billing/estimate.js";
import type { Pricing } from "../billing/pricing.js";
import type { RequestBilling } from "../billing/request-billing.js";
import type { Config } from "../config/schema.js";
import { asGatewayError, GatewayError } from "../core/errors.js";
import type { ModelCheck } from "../core/model-check.js";
import type { ModelPrice } from "../core/price.js";
import { GatewayRequest, type StripMode } from "../core/request.js";
import type { RequestSharing } from "../core/sharing.js";
import { checkDeclaredLength, isNotWhole, notWhole, readBody } from "../http/body.js";
import { errorFormatOf, sendError } from "../http/respond.js";
import type { RequestObserver } from "../observability/observer.js";
import { RequestFailures } from "../observability/request-failures.js";
import type { Tracing } from "../observability/telemetry.js";
import { bodyEdits, type FieldEdit, withFields } from "./body-rewrite.js";
import { type Endpoint, type EndpointTable, type FieldPath, pathNotAllowed } from "./endpoints.js";
import { Exchange, type ExchangeDeps } from "./exchange.js";
import { prepareUpstreamHeaders } from "./headers.js";
import { modelOfPath } from "./model-list.js";
import { rateLimitHeaders } from "./rate-limit-headers.js";
import { endRequest } from "./request-end.js";
import { inspectRequest, type RequestFacts, valueAt } from "./request-facts.js";
import type { RequestTracker } from "./request-tracker.js";
import type { SharingCache } from "./sharing-cache.js";
import type { UpstreamGate } from "./upstream-gate.js";
import { createUpstreamProxy } from "./upstream-proxy.js";

/** Handles a request that the gateway does not answer itself (the public listener's everything-else). */
export type Forwarder = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  /** When it arrived (performance.now()). */
  arrivedAt: number,
  /** The URL's path, without the query. */
  path: string,
  /** Whether the request came over HTTPS (the socket, or a trusted proxy's X-Forwarded-Proto). */
  secure: boolean,
) => void;

export interface ForwardingProxy {
  forward: Forwarder;
  /**
   * Stops forwarding new requests (they get 503 and go to another replica); those in flight go on, and those
   * waiting for the model server are answered 503 at once.
   */
  stopForwarding(): void;
  close(): void;
}

/** What forwarding uses: its settings, and the parts of the gateway each step of a request calls. */
export interface ForwarderDeps {
  config: Pick<
    Config,
    "upstream" | "limits" | "estimate" | "billing" | "logging" | "requestLog" | "metering"
  >;
  authenticator: Pick<Authenticator, "resolve">;
  endpoints: Pick<EndpointTable, "classify">;
  pricing: Pick<Pricing, "priceFor">;
  billing: Pick<RequestBilling, "admitOnLease" | "reserve" | "release" | "settle">;
  /** What is in flight (shutdown, the keeper and the gauge read it). */
  tracker: Pick<RequestTracker, "begin" | "end">;
  observer: Pick<RequestObserver, "finished" | "refused">;
  /** Starts each request's trace while tracing is on; null (the client's trace headers untouched) while off. */
  tracing?: Tracing | null;
  logger: Logger;
  /** Wall clock (ms). */
  now(): number;
  /**
   * Fair sharing (docs/fair-sharing.md): the gate to a model server with a limit (upstream.maxInFlight), and
   * the keys' settings, read where the gate or a priority field (upstream.priorityField) needs them.
   */
  gate?: UpstreamGate | null;
  sharing?: Pick<SharingCache, "get"> | null;
  /** How a 5xx of its own is logged: once per Redis outage, per request for a bug (the replica's one). */
  failures?: Pick<RequestFailures, "failed" | "redisAnswered">;
}

/** What a stream the gateway asked for usage has taken out of it (see StripMode). */
const STRIP_LAST: StripMode = Object.freeze({ everyChunk: false });
const STRIP_EVERY_CHUNK: StripMode = Object.freeze({ everyChunk: true });

/** What each exchange is given: built once, from the forwarder's settings and parts. */
export function exchangeDeps(deps: ForwarderDeps): ExchangeDeps {
  const { upstream, metering, logging, requestLog } = deps.config;
  return {
    timeoutMs: upstream.timeoutMs,
    metering,
    captureBytes: Math.max(logging.bodies ? logging.maxBodyBytes : 0, requestLog.maxBodyBytes),
    logger: deps.logger,
    end: (request) => endRequest(deps, request),
  };
}

export function createForwarder(deps: ForwarderDeps): ForwardingProxy {
  const { config } = deps;
  const upstream = createUpstreamProxy(config.upstream);
  const upstreamAuthorization = config.upstream.apiKey ? `Bearer ${config.upstream.apiKey}` : undefined;
  const forExchanges = exchangeDeps(deps);
  const gate = deps.gate ?? null;
  const sharingCache = deps.sharing ?? null;
  const priority = priorityWriter(config.upstream);
  const tracing = deps.tracing ?? null;
  const failures = deps.failures ?? new RequestFailures(deps.logger);
  let forwarding = true;

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    arrivedAt: number,
    path: string,
    secure: boolean,
  ) {
    const method = req.method ?? "GET";
    const request = new GatewayRequest(requestId, method, path, arrivedAt);
    request.errorFormat = errorFormatOf(path);
    if (tracing !== null) request.trace = tracing.begin(req.headers, arrivedAt);
    deps.tracker.begin(request);
    try {
      if (!forwarding)
        throw new GatewayError("service_unavailable", "The gateway is shutting down; retry the request.");
      const credential = await deps.authenticator.resolve(req.headers);
      request.ref = credential.ref;
      request.authenticatedAt = performance.now();
      const endpoint = deps.endpoints.classify(method, path);
      if (endpoint.class === "management") throw pathNotAllowed(method, path);
      checkDeclaredLength(req, config.limits.maxBodyBytes);
      const body = await readBody(req, config.limits.maxBodyBytes);
      // Bytes after the declared length that are no HTTP made Node's parser refuse the connection (and end it)
      // while the body was read: the body's length was a lie, and no answer to it could reach the client.
      if (!req.socket.writable) throw notWhole(req, body.length, "bytes that are not HTTP followed it");
      const facts = await inspectRequest(body, req.headers["content-type"], endpoint, config.limits);
      const pathModel = method === "GET" ? modelOfPath(path) : null;
      const check: ModelCheck = pathModel !== null ? { kind: "named", model: pathModel } : facts.model;
      const model = check.kind === "named" ? check.model : null;
      request.model = model;
      const price = deps.pricing.priceFor(model);
      request.price = price;
      checkCapsFit(facts, price, model);
      // A request without a body, or one that only counts tokens, is never reserved or charged.
      const usageClass = body.length === 0 || endpoint.class === "free" ? null : endpoint.class;
      request.endpointClass = body.length === 0 ? "free" : endpoint.class;
      request.usageClass = usageClass;
      const cap = facts.maxOutputTokens ?? price.maxOutputTokens;
      const worst = usageClass
        ? worstCase(usageClass, facts.prompt, cap, facts.choices, price, config.estimate)
        : NOTHING;
      // The key's fair-sharing settings, read (on a miss) alongside its admission rather than after it. Only a
      // request the model server runs is queued or given a priority.
      const sharing = usageClass !== null && sharingCache !== null ? sharingCache.get(credential.ref) : null;
      // On the lease without a promise; else reserved in Redis.
      request.admittingAt = performance.now();
      const admitted =
        deps.billing.admitOnLease(request, credential.hash, check, worst) ??
        (await deps.billing.reserve(request, credential.hash, check, worst));
      request.admittedAt = performance.now();
      if (request.admission === "reserve") failures.redisAnswered();

      // From here on the request is admitted: whatever fails before the exchange takes over releases it.
      try {
        const askUsage =
          config.upstream.injectStreamUsage &&
          endpoint.streamUsage &&
          facts.json !== null &&
          facts.stream &&
          !facts.asksForUsage;
        const shared = sharing instanceof Promise ? await sharing : sharing;
        const priorityEdit = priority === null || shared === null ? null : priority(shared);
        const forwarded = forwardedBody(
          body,
          facts,
          endpoint,
          usageClass === "generation",
          cap,
          askUsage,
          priorityEdit,
        );
        const filterModels = method === "GET" && path === "/v1/models" ? admitted.allowedModels : null;
        prepareUpstreamHeaders(req, {
          requestId,
          callerToken: credential.token,
          upstreamAuthorization,
          bodyLength: forwarded.length,
          identityEncoding: askUsage || filterModels !== null,
          protocol: secure ? "https" : "http",
        });
        request.received = body;
        request.body = forwarded;
        request.strip = askUsage ? (facts.continuousUsage ? STRIP_EVERY_CHUNK : STRIP_LAST) : null;
        request.filterModels = filterModels;
        request.promptEstimate = usageClass ? estimatedPromptTokens(facts.prompt, price, config.estimate) : 0;
        request.maxCompletionTokens =
          usageClass === "generation" ? cap * facts.choices : usageClass === "input-only" ? 0 : null;
        request.maxPromptTokens = price.contextTokens ?? config.billing.maxPromptTokens;
        request.rateLimitHeaders = rateLimitHeaders(admitted.rpm, admitted.tpm);
        new Exchange(req, res, request, forExchanges).start(
          upstream.proxy,
          usageClass === null ? null : gate,
          shared,
        );
      } catch (error) {
        deps.billing.release(request, "internal_error", 500);
        throw error;
      }
    } catch (error) {
      refuse(deps, failures, req, res, error, request);
      deps.tracker.end(request);
    }
  }

  return {
    forward: (req, res, requestId, arrivedAt, path, secure) =>
      void forward(req, res, requestId, arrivedAt, path, secure),
    stopForwarding: () => {
      forwarding = false;
      gate?.drain();
    },
    close: () => upstream.close(),
  };
}

/** Answers a request the gateway will not forward with its error, and reports the refusal. */
function refuse(
  deps: ForwarderDeps,
  failures: Pick<RequestFailures, "failed">,
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  request: GatewayRequest,
): void {
  // The client is gone, or its connection was answered and ended by the parser: there is no one to answer.
  if (res.destroyed || !req.socket.writable) return;
  const failure = asGatewayError(error);
  failures.failed(failure, { request_id: request.requestId }, "request failed");
  // After refusing a body half-way, or one that did not arrive whole, close the connection rather than read
  // (or wait for) the rest of it.
  if (failure.code === "payload_too_large" || isNotWhole(failure)) res.shouldKeepAlive = false;
  sendError(res, failure, { format: request.errorFormat });
  request.refuse(failure, deps.now(), performance.now());
  deps.observer.refused(request);
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
  priority: FieldEdit | null,
): Buffer {
  if (facts.json === null) return body;
  const target = generation ? capTargetOf(endpoint, facts.json.value) : null;
  const targetSet = target !== null && facts.capsSet.some((path) => path.join(".") === target.join("."));
  const edits = bodyEdits(target, targetSet, cap, askUsage, priority);
  return edits.length === 0 ? body : withFields(body, facts.json.scan, edits);
}

/**
 * Where upstream.priorityField is set: the edit that writes a request's priority into that field, replacing
 * whatever the client sent (a client may not choose its own priority). The gateway's priorities are lower
 * first; a higherFirst server (SGLang's default) gets them negated. Without a priority of its key or account,
 * a request carries the servers' default, 0.
 */
function priorityWriter(
  upstream: ForwarderDeps["config"]["upstream"],
): ((sharing: RequestSharing) => FieldEdit) | null {
  const field = upstream.priorityField;
  if (field === undefined) return null;
  const path = field.split(".");
  const sign = upstream.priorityOrder === "higherFirst" ? -1 : 1;
  return (sharing) => ({ path, value: String(sign * (sharing.priority ?? 0) || 0) });
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
