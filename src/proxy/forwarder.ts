// Forwarding: everything the gateway does not answer itself goes through here, in one direction —
// authenticate (cached mapping), read the body within the limit, find the model and the worst case, reserve
// it in Redis (the one round trip before forwarding), then hand the request to an Exchange, which streams
// it to the upstream with http-proxy-3 and settles it when it ends.

import { randomUUID } from "node:crypto";
import { Agent as HttpAgent, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { createProxyServer } from "http-proxy-3";
import type { Authenticator } from "../auth/authenticator.js";
import { type WorstCase, worstCase } from "../billing/estimate.js";
import type { Pricing } from "../billing/pricing.js";
import { type ErrorCode, GatewayError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { Forwarder } from "../server/context.js";
import { sendError } from "../server/respond.js";
import type { BillingStore, ModelCheck } from "../store/billing-store.js";
import type { KeyRef } from "../store/key-store.js";
import { asGatewayError, isConnectionError } from "../store/redis.js";
import { entryTime, type RequestLogEntry } from "../store/request-log-store.js";
import { checkDeclaredLength, readBody } from "./body.js";
import { Exchange, type ExchangeDeps, exchangeOf } from "./exchange.js";
import { prepareUpstreamHeaders } from "./headers.js";
import { modelOfPath } from "./models-filter.js";
import { refusalError } from "./refusals.js";
import { inspectRequest } from "./request-facts.js";

export interface RefusedRequest {
  requestId: string;
  method: string;
  path: string;
  status: number;
  code: ErrorCode;
  accountId: string | null;
  keyId: string | null;
  model: string | null;
  gatewayMs: number;
}

export interface ForwarderDeps extends Omit<ExchangeDeps, "running"> {
  authenticator: Authenticator;
  billing: BillingStore;
  pricing: Pricing;
  logger: Logger;
  refused: (request: RefusedRequest) => void;
  /** Reservations of the account found expired (never settled) while reserving. */
  expiredReservations: (count: number) => void;
}

export interface ForwardingProxy {
  forward: Forwarder;
  /** Stops forwarding new requests (they get 503 and go to another replica); those in flight go on. */
  stopForwarding(): void;
  /** Aborts every request still running (the end of a shutdown drain); each is billed for what it produced. */
  abortRunning(): void;
  close(): void;
}

const NOTHING: WorstCase = { promptTokens: 0, completionTokens: 0, choices: 1, amount: 0 };

export function createForwarder(deps: ForwarderDeps): ForwardingProxy {
  const { config } = deps;
  const target = new URL(config.upstream.url);
  // `timeout` closes a pooled connection once it has been idle that long; a connection in use is not cut
  // by it (Node only emits an event, which nothing here listens to: upstream.timeoutMs governs a request).
  const agentOptions = {
    keepAlive: true,
    scheduling: "lifo" as const,
    timeout: config.upstream.keepAliveIdleMs,
  };
  const agent = target.protocol === "https:" ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const proxy = createProxyServer({
    target: config.upstream.url,
    agent,
    changeOrigin: true,
    selfHandleResponse: true,
    xfwd: false,
  });
  proxy.on("proxyReq", (proxyReq, req) => exchangeOf(req)?.onUpstreamRequest(proxyReq));
  proxy.on("proxyRes", (proxyRes, req) => exchangeOf(req)?.onUpstreamResponse(proxyRes));
  const upstreamAuthorization = config.upstream.apiKey ? `Bearer ${config.upstream.apiKey}` : undefined;
  const running = new Set<Exchange>();
  const exchangeDeps: ExchangeDeps = { ...deps, running };
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
    let ref: KeyRef | null = null;
    let model: string | null = null;
    deps.inFlight.begin();
    try {
      if (!forwarding)
        throw new GatewayError("service_unavailable", "The gateway is shutting down; retry the request.");
      const credential = await deps.authenticator.resolve(req.headers.authorization);
      ref = credential.ref;
      checkDeclaredLength(req, config.limits.maxBodyBytes);
      const body = await readBody(req, config.limits.maxBodyBytes);
      const facts = await inspectRequest(body, req.headers["content-type"]);
      const pathModel = req.method === "GET" ? modelOfPath(path) : null;
      const check: ModelCheck = pathModel !== null ? { kind: "named", model: pathModel } : facts.model;
      model = check.kind === "named" ? check.model : null;
      const price = deps.pricing.priceFor(model);
      const worst =
        body.length === 0
          ? NOTHING
          : worstCase(body.length, facts.maxOutputTokens, facts.choices, price, config.estimate);
      const now = deps.now();
      const periods = deps.calendar.at(now);
      const reservationId = randomUUID();
      const reservation = await deps.billing
        .reserve(ref, {
          reservationId,
          amount: worst.amount,
          now,
          periods,
          expiresAt: now + reservationTtlMs,
          model: check,
        })
        .catch((error: unknown) => {
          if (isConnectionError(error)) {
            releaseUnanswered(credential.ref, reservationId, requestId, req.method, path, model, arrivedAt);
          }
          throw error;
        });
      if (reservation.expired > 0) deps.expiredReservations(reservation.expired);
      if (!reservation.ok) throw refusalError(reservation, worst, price, check, periods);

      const strip =
        config.upstream.injectStreamUsage &&
        facts.json !== null &&
        facts.stream &&
        path.endsWith("/completions") &&
        !asksForUsage(facts.json);
      // A generation without an output cap would run to the model's context length, far past the worst case
      // reserved for it: it gets the cap the reservation assumed.
      const capField = facts.json !== null && !facts.outputCapSet ? outputCapField(path) : null;
      const forwarded =
        strip || capField
          ? rewrittenBody(facts.json as Record<string, unknown>, strip, capField, price.maxOutputTokens)
          : body;
      const filterModels = req.method === "GET" && path === "/v1/models" ? reservation.allowedModels : null;
      prepareUpstreamHeaders(req, {
        requestId,
        callerToken: credential.token,
        upstreamAuthorization,
        bodyLength: forwarded.length,
        identityEncoding: strip || filterModels !== null,
        protocol: secure ? "https" : "http",
      });
      new Exchange(req, res, exchangeDeps, {
        requestId,
        arrivedAt,
        ref,
        keyName: reservation.keyName,
        logBodies: reservation.logBodies,
        model,
        path,
        price,
        reservationId,
        reserved: worst.amount,
        received: body,
        body: forwarded,
        strip,
        filterModels,
      }).start(proxy);
    } catch (error) {
      refuse(error);
      deps.inFlight.end();
    }

    function refuse(error: unknown): void {
      if (res.destroyed) return; // the client is gone; there is no one to answer
      const failure = asGatewayError(error);
      if (failure.status >= 500)
        deps.logger.error({ request_id: requestId, err: failure.cause ?? failure }, "request failed");
      // After refusing a body half-way, close the connection rather than read the rest of it.
      if (failure.code === "payload_too_large") res.shouldKeepAlive = false;
      sendError(res, failure);
      deps.refused({
        requestId,
        method: req.method ?? "GET",
        path,
        status: failure.status,
        code: failure.code,
        accountId: ref?.accountId ?? null,
        keyId: ref?.keyId ?? null,
        model,
        gatewayMs: performance.now() - arrivedAt,
      });
    }
  }

  /**
   * The reservation script may have run with only its reply lost (Redis stalled past the command timeout, or
   * the connection dropped): a settlement of nothing releases what it may hold now, rather than after
   * billing.reservationTtlSeconds, and changes nothing if the script never ran. The client got 503.
   */
  function releaseUnanswered(
    ref: KeyRef,
    reservationId: string,
    requestId: string,
    method: string | undefined,
    path: string,
    model: string | null,
    arrivedAt: number,
  ): void {
    const now = deps.now();
    const latencyMs = performance.now() - arrivedAt;
    const entry: RequestLogEntry = {
      at: entryTime(now),
      request_id: requestId,
      method: method ?? "GET",
      path,
      model,
      status: 503,
      outcome: "redis_unavailable",
      prompt_tokens: 0,
      completion_tokens: 0,
      cost: 0,
      usage_estimated: false,
      latency_ms: Math.round(latencyMs),
      upstream_ttfb_ms: null,
    };
    deps.settlements.submit({
      ref,
      keyName: null,
      input: {
        reservationId,
        logEntry: JSON.stringify(entry),
        logEntryWithBodies: "",
        cost: 0,
        promptTokens: 0,
        completionTokens: 0,
        failed: true,
        estimated: false,
        latencyMs,
        periods: deps.calendar.at(now),
        day: deps.calendar.dayOf(now),
      },
    });
  }

  return {
    forward: (req, res, requestId, arrivedAt, secure) => void forward(req, res, requestId, arrivedAt, secure),
    stopForwarding: () => {
      forwarding = false;
    },
    abortRunning: () => {
      for (const exchange of [...running]) exchange.abortForShutdown();
    },
    close: () => {
      proxy.close();
      agent.destroy();
    },
  };
}

export function pathOf(url: string | undefined): string {
  if (url === undefined) return "/";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

function asksForUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return (
    typeof options === "object" &&
    options !== null &&
    (options as { include_usage?: unknown }).include_usage === true
  );
}

/** The field that caps a generation's output on this endpoint (chat and text completions, Anthropic's
 * messages, Responses), or null for endpoints that generate no text. */
function outputCapField(path: string): string | null {
  if (path.endsWith("/completions") || path.endsWith("/messages")) return "max_tokens";
  if (path.endsWith("/responses")) return "max_output_tokens";
  return null;
}

/**
 * The JSON body as forwarded: with stream_options.include_usage set, so that the upstream reports exact
 * usage at the end, and with the output cap the reservation assumed when the body set none.
 */
function rewrittenBody(
  body: Record<string, unknown>,
  streamUsage: boolean,
  capField: string | null,
  cap: number,
): Buffer {
  const out: Record<string, unknown> = { ...body };
  if (streamUsage) {
    const options =
      typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
    out.stream_options = { ...options, include_usage: true };
  }
  if (capField) out[capField] = cap;
  return Buffer.from(JSON.stringify(out));
}
