// One forwarded request from the moment its reservation is made: streams the upstream's response to the
// client through the meter, turns timeouts and failures into 502/504, stops the upstream the instant the
// client goes away, and — exactly once, whatever way it ends — works out the usage and cost, hands the
// settlement to the queue and reports the finished request to the observers (log line, metrics).
//
// Event handlers are module-level functions that find their exchange through a symbol on the request and
// response objects, so the per-request cost is one object, not a bundle of closures.

import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import type { ProxyServer } from "http-proxy-3";
import { estimatedUsage } from "../billing/estimate.js";
import { type Micros, rublesForJson } from "../billing/money.js";
import type { PeriodCalendar } from "../billing/periods.js";
import { costOf, type ModelPrice, type TokenCounts } from "../billing/pricing.js";
import type { ReservationKeeper } from "../billing/reservation-keeper.js";
import type { SettlementQueue } from "../billing/settlement-queue.js";
import type { Config } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import { sendError } from "../server/respond.js";
import type { KeyRef } from "../store/key-store.js";
import { entryTime, type RequestLogEntry } from "../store/request-log-store.js";
import { clientResponseHeaders } from "./headers.js";
import type { InFlight } from "./in-flight.js";
import { filterModelList } from "./models-filter.js";
import { ResponseMeter } from "./response-meter.js";
import { isComplete } from "./usage.js";

const EXCHANGE = Symbol("tunnel-gateway.exchange");
type Tagged = { [EXCHANGE]?: Exchange };

/** Largest model list held back for filtering; a bigger one is passed through unfiltered. */
const MAX_HELD_BYTES = 4 << 20;

export type Outcome =
  | "completed"
  | "client_aborted"
  | "upstream_unavailable"
  | "upstream_timeout"
  | "upstream_reset"
  /** Still running when the shutdown drain ended: aborted, and billed for what it had produced. */
  | "shutdown";

export interface FinishedRequest {
  requestId: string;
  method: string;
  path: string;
  accountId: string;
  keyId: string;
  keyName: string;
  model: string | null;
  /** Status the client received; 499 when it went away before a response started. */
  status: number;
  outcome: Outcome;
  promptTokens: number;
  completionTokens: number;
  cost: Micros;
  estimated: boolean;
  reserved: Micros;
  latencyMs: number;
  upstreamTtfbMs: number | null;
  gatewayMs: number;
  /** Present only when both the key's log_bodies and logging.bodies allow it. */
  requestBody?: string;
  responseBody?: string;
}

export interface ExchangeDeps {
  config: Config;
  inFlight: InFlight;
  /** Exchanges in progress, so that shutdown can abort what is left when the drain ends. */
  running: Set<Exchange>;
  now: () => number;
  calendar: PeriodCalendar;
  settlements: SettlementQueue;
  keeper: ReservationKeeper;
  finished: (request: FinishedRequest) => void;
}

export interface ExchangeInit {
  requestId: string;
  arrivedAt: number;
  ref: KeyRef;
  keyName: string;
  logBodies: boolean;
  model: string | null;
  path: string;
  price: ModelPrice;
  reservationId: string;
  /** What was reserved (0 for a request without a body). */
  reserved: Micros;
  /** The body as the client sent it (logged, and the prompt size of an estimate). */
  received: Buffer;
  /** The body as forwarded (with stream_options added when the gateway asks for usage). */
  body: Buffer;
  /** Remove the usage-only chunk that the gateway's stream_options caused. */
  strip: boolean;
  /** Filter a model list down to these models. */
  filterModels: readonly string[] | null;
}

export class Exchange {
  forwardedAt = 0;
  private firstByteAt = 0;
  private upstreamRequest: ClientRequest | undefined;
  private upstreamResponse: IncomingMessage | undefined;
  private meter: ResponseMeter | undefined;
  private status = 0;
  private outcome: Outcome = "completed";
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private held: Buffer[] | null = null;
  private heldBytes = 0;
  private captured: Buffer[] | null = null;
  private capturedBytes = 0;
  private done = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly deps: ExchangeDeps,
    private readonly init: ExchangeInit,
  ) {}

  start(proxy: ProxyServer): void {
    this.deps.running.add(this);
    (this.req as Tagged)[EXCHANGE] = this;
    (this.res as Tagged)[EXCHANGE] = this;
    if (this.init.reserved > 0) this.deps.keeper.track(this.init.reservationId, this.init.ref.accountId);
    if (this.init.logBodies) this.captured = [];
    this.res.on("close", onClientClose);
    if (this.res.destroyed) {
      // The client left while the reservation was being made.
      this.outcome = "client_aborted";
      void this.finish();
      return;
    }
    this.forwardedAt = performance.now();
    this.timer = setTimeout(onUpstreamTimeout, this.deps.config.upstream.timeoutMs, this);
    proxy.web(this.req, this.res, { buffer: bodySource(this.init.body) }, onProxyError);
  }

  onUpstreamRequest(request: ClientRequest): void {
    this.upstreamRequest = request;
    if (this.timedOut) request.destroy();
  }

  onUpstreamResponse(response: IncomingMessage): void {
    clearTimeout(this.timer);
    this.firstByteAt = performance.now();
    // Too late: the gateway has answered already (a timeout, the end of a shutdown drain) or the client left.
    if (this.done || this.timedOut || this.res.headersSent || this.res.destroyed) {
      response.destroy();
      return;
    }
    (response as Tagged)[EXCHANGE] = this;
    this.upstreamResponse = response;
    this.status = response.statusCode ?? 502;
    const meter = new ResponseMeter(response.headers, this.init.strip);
    this.meter = meter;
    const identity = (response.headers["content-encoding"] ?? "identity") === "identity";
    if (this.init.filterModels && this.status === 200 && identity) {
      this.held = [];
    } else {
      this.res.writeHead(this.status, clientResponseHeaders(response.headers, meter.stripping));
    }
    response.on("data", onUpstreamData);
    response.on("end", onUpstreamEnd);
    response.on("close", onUpstreamClose);
  }

  onUpstreamData(response: IncomingMessage, chunk: Buffer): void {
    const out = (this.meter as ResponseMeter).push(chunk);
    if (this.held) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes > MAX_HELD_BYTES) this.releaseHeld(response);
      return;
    }
    this.send(response, out);
  }

  onUpstreamEnd(response: IncomingMessage): void {
    const tail = (this.meter as ResponseMeter).end();
    if (this.held) {
      const body = Buffer.concat(this.held, this.heldBytes);
      const filtered = filterModelList(body, this.init.filterModels ?? []) ?? body;
      this.held = null;
      const headers = clientResponseHeaders(response.headers, true);
      headers["content-length"] = filtered.length;
      this.res.writeHead(this.status, headers);
      this.capture(filtered);
      this.res.end(filtered);
      return;
    }
    if (tail.length > 0) this.capture(tail);
    this.res.end(tail.length > 0 ? tail : undefined);
  }

  /** The upstream connection closed; before the end of the response, that is a cut-off stream. */
  onUpstreamClose(response: IncomingMessage): void {
    if (response.complete || this.res.destroyed || this.done) return;
    this.outcome = "upstream_reset";
    this.meter?.abort();
    this.res.destroy();
  }

  onUpstreamError(error: NodeJS.ErrnoException): void {
    clearTimeout(this.timer);
    if (this.done || this.res.destroyed) return;
    if (this.timedOut) {
      this.outcome = "upstream_timeout";
    } else if (this.status === 0) {
      this.outcome = "upstream_unavailable";
      sendError(this.res, new GatewayError("upstream_unavailable", upstreamMessage(error)));
    } else {
      this.outcome = "upstream_reset";
      this.meter?.abort();
      this.res.destroy();
    }
  }

  onTimeout(): void {
    if (this.status !== 0 || this.done) return;
    this.timedOut = true;
    this.outcome = "upstream_timeout";
    this.upstreamRequest?.destroy();
    sendError(
      this.res,
      new GatewayError(
        "upstream_timeout",
        `The model server did not answer within ${this.deps.config.upstream.timeoutMs} ms.`,
      ),
    );
  }

  /** The drain is over: stop the upstream, end the client's response, bill what was produced. */
  abortForShutdown(): void {
    if (this.done) return;
    this.outcome = "shutdown";
    this.upstreamRequest?.destroy();
    if (this.status === 0 && !this.res.headersSent) {
      sendError(
        this.res,
        new GatewayError("service_unavailable", "The gateway is shutting down; retry the request."),
      );
    } else {
      this.meter?.abort();
      this.res.destroy();
    }
  }

  onClientClose(): void {
    if (!this.res.writableFinished || this.outcome === "shutdown") {
      if (this.outcome === "completed") this.outcome = "client_aborted";
      // http-proxy-3 destroys the upstream request; the meter keeps what it has read so far. (After a
      // complete response the meter may still be decompressing its copy, and is left to finish.)
      this.meter?.abort();
    }
    void this.finish();
  }

  private send(response: IncomingMessage, out: Buffer | string): void {
    if (out.length === 0) return;
    this.capture(out);
    if (!this.res.write(out)) {
      response.pause();
      this.res.once("drain", onClientDrain);
    }
  }

  /** The model list is too large to filter: send what was held and pass the rest through. */
  private releaseHeld(response: IncomingMessage): void {
    const held = this.held ?? [];
    this.held = null;
    this.res.writeHead(this.status, clientResponseHeaders(response.headers, false));
    for (const chunk of held) this.send(response, chunk);
  }

  private capture(out: Buffer | string): void {
    if (!this.captured) return;
    const limit = this.captureLimit();
    if (this.capturedBytes >= limit) return;
    const chunk = typeof out === "string" ? Buffer.from(out) : out;
    this.captured.push(chunk);
    this.capturedBytes += chunk.length;
  }

  /** Bodies are kept for the log line and the key's recent-requests list, each cut to its own limit. */
  private captureLimit(): number {
    const { logging, requestLog } = this.deps.config;
    return Math.max(logging.bodies ? logging.maxBodyBytes : 0, requestLog.maxBodyBytes);
  }

  /** The client drained its buffer: let the upstream's bytes flow again. */
  resumeUpstream(): void {
    this.upstreamResponse?.resume();
  }

  private async finish(): Promise<void> {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.deps.running.delete(this);
    this.deps.keeper.untrack(this.init.reservationId);
    const result = this.meter ? await this.meter.result() : null;
    const { tokens, estimated } = this.usage(result);
    const raw = costOf(tokens, this.init.price);
    // An estimate never charges more than the worst case that was reserved for the request.
    const cost = estimated ? Math.min(raw, this.init.reserved) : raw;
    const endedAt = performance.now();
    const latencyMs = endedAt - this.init.arrivedAt;
    const status = this.status === 0 ? statusWithoutResponse(this.outcome, this.res) : this.status;
    const failed = status >= 400 || this.outcome !== "completed";
    const now = this.deps.now();

    const logEntry: RequestLogEntry = {
      at: entryTime(now),
      request_id: this.init.requestId,
      method: this.req.method ?? "GET",
      path: this.init.path,
      model: this.init.model,
      status,
      outcome: this.outcome,
      prompt_tokens: tokens.promptTokens,
      completion_tokens: tokens.completionTokens,
      cost: rublesForJson(cost),
      usage_estimated: estimated,
      latency_ms: Math.round(latencyMs),
      upstream_ttfb_ms: this.firstByteAt > 0 ? Math.round(this.firstByteAt - this.forwardedAt) : null,
    };
    const bodies = this.bodies();
    const requestLogLimit = this.deps.config.requestLog.maxBodyBytes;
    const entry = JSON.stringify(logEntry);
    this.deps.settlements.submit({
      ref: this.init.ref,
      keyName: this.init.keyName,
      input: {
        logEntry: entry,
        logEntryWithBodies:
          bodies && requestLogLimit > 0
            ? withBodies(entry, bodies.request(requestLogLimit), bodies.response(requestLogLimit))
            : "",
        reservationId: this.init.reservationId,
        cost,
        promptTokens: tokens.promptTokens,
        completionTokens: tokens.completionTokens,
        failed,
        estimated,
        latencyMs,
        periods: this.deps.calendar.at(now),
        day: this.deps.calendar.dayOf(now),
      },
    });

    const finished: FinishedRequest = {
      requestId: this.init.requestId,
      method: this.req.method ?? "GET",
      path: this.init.path,
      accountId: this.init.ref.accountId,
      keyId: this.init.ref.keyId,
      keyName: this.init.keyName,
      model: this.init.model,
      status,
      outcome: this.outcome,
      promptTokens: tokens.promptTokens,
      completionTokens: tokens.completionTokens,
      cost,
      estimated,
      reserved: this.init.reserved,
      latencyMs,
      upstreamTtfbMs: this.firstByteAt > 0 ? this.firstByteAt - this.forwardedAt : null,
      gatewayMs: (this.forwardedAt || endedAt) - this.init.arrivedAt,
    };
    if (bodies && this.deps.config.logging.bodies) {
      const limit = this.deps.config.logging.maxBodyBytes;
      finished.requestBody = bodies.request(limit);
      finished.responseBody = bodies.response(limit);
    }
    this.deps.finished(finished);
    this.deps.inFlight.end();
  }

  /**
   * The request and response bodies as captured, when the key's log_bodies allowed capturing them, each as a
   * function that gives its first `limit` bytes as text.
   */
  private bodies(): { request: BodyText; response: BodyText } | null {
    if (!this.captured) return null;
    return { request: bodyText(this.init.received), response: bodyText(Buffer.concat(this.captured)) };
  }

  /**
   * The usage to bill: what the upstream reported; for an upstream error status, only what it reported;
   * otherwise (no report, or a stream cut short by the client, the upstream or the end of a shutdown drain)
   * an estimate from the traffic, marked as such. Nothing is charged when nothing was generated for the
   * request or the gateway gave up on it before any answer: never forwarded (the client left during the
   * reservation), refused or timed out upstream, stopped by a shutdown before the upstream answered (the
   * client was told to retry), or a request without a body (such as retrieving a stored response, whose
   * usage was billed when it was generated).
   */
  private usage(result: Awaited<ReturnType<ResponseMeter["result"]>> | null): {
    tokens: TokenCounts;
    estimated: boolean;
  } {
    if (
      this.forwardedAt === 0 ||
      this.init.received.length === 0 ||
      this.outcome === "upstream_unavailable" ||
      this.outcome === "upstream_timeout" ||
      (this.outcome === "shutdown" && this.status === 0)
    ) {
      return { tokens: { promptTokens: 0, completionTokens: 0 }, estimated: false };
    }
    const reported = result?.usage ?? {};
    if (isComplete(reported)) return { tokens: reported, estimated: false };
    if (this.status >= 400 && this.outcome === "completed") {
      return {
        tokens: {
          promptTokens: reported.promptTokens ?? 0,
          completionTokens: reported.completionTokens ?? 0,
        },
        estimated: false,
      };
    }
    const tokens = estimatedUsage(
      reported,
      this.init.received.length,
      this.meter?.bytes ?? 0,
      result?.events ?? null,
      this.deps.config.estimate,
    );
    return { tokens, estimated: true };
  }
}

export function exchangeOf(target: object): Exchange | undefined {
  return (target as Tagged)[EXCHANGE];
}

/**
 * The request body for http-proxy-3, which sends `options.buffer` with `buffer.pipe(proxyRequest)`. The body
 * is already in memory, so this stand-in ends the upstream request with it in one write, without the stream
 * and async iterator that Readable.from would build for every request.
 */
function bodySource(body: Buffer): Readable {
  const source = {
    pipe(destination: Writable): Writable {
      destination.end(body);
      return destination;
    },
  };
  return source as unknown as Readable;
}

type BodyText = (limit: number) => string;

/**
 * A body's first `limit` bytes as text (a multi-byte character cut in two becomes U+FFFD). It is cut for the
 * log line and for the recent-requests list, each to its own limit; a body shorter than both, the usual
 * case, is turned into text once.
 */
function bodyText(bytes: Buffer): BodyText {
  let whole: string | undefined;
  return (limit) => {
    if (bytes.length > limit) return bytes.subarray(0, limit).toString("utf8");
    whole ??= bytes.toString("utf8");
    return whole;
  };
}

/**
 * The entry's JSON with the bodies added at the end: what JSON.stringify({ ...entry, request_body,
 * response_body }) gives, without serializing the entry a second time.
 */
function withBodies(entry: string, request: string, response: string): string {
  return `${entry.slice(0, -1)},"request_body":${JSON.stringify(request)},"response_body":${JSON.stringify(response)}}`;
}

function statusWithoutResponse(outcome: Outcome, res: ServerResponse): number {
  if (outcome === "client_aborted") return 499;
  if (outcome === "shutdown") return 503;
  return res.headersSent ? res.statusCode : 502;
}

function upstreamMessage(error: NodeJS.ErrnoException): string {
  const code = error.code ? ` (${error.code})` : "";
  return `The model server could not be reached${code}.`;
}

function onUpstreamData(this: IncomingMessage, chunk: Buffer): void {
  exchangeOf(this)?.onUpstreamData(this, chunk);
}

function onUpstreamEnd(this: IncomingMessage): void {
  exchangeOf(this)?.onUpstreamEnd(this);
}

function onUpstreamClose(this: IncomingMessage): void {
  exchangeOf(this)?.onUpstreamClose(this);
}

function onClientClose(this: ServerResponse): void {
  exchangeOf(this)?.onClientClose();
}

function onClientDrain(this: ServerResponse): void {
  exchangeOf(this)?.resumeUpstream();
}

function onUpstreamTimeout(exchange: Exchange): void {
  exchange.onTimeout();
}

function onProxyError(error: Error, req: IncomingMessage): void {
  exchangeOf(req)?.onUpstreamError(error as NodeJS.ErrnoException);
}
