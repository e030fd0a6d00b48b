// One forwarded request from the moment its reservation is made: streams the upstream's response to the
// client through the meter (with backpressure), turns timeouts and failures into 502/504, stops the
// upstream the instant the client goes away, and — exactly once, whatever way it ends — gathers the facts
// of what happened, has the charging policy (billing/charge.ts) say what they cost, hands the settlement
// to the queue and reports the finished request to the observers (log line, metrics).
//
// Event handlers are module-level functions that find their exchange through a symbol on the request and
// response objects, so the per-request cost is one object, not a bundle of closures.

import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { Readable, Writable } from "node:stream";
import type { ProxyServer } from "http-proxy-3";
import { type Charge, charge, type UsageClass } from "../billing/charge.js";
import { estimatedCompletionTokens } from "../billing/estimate.js";
import { type Micros, rublesForJson } from "../billing/money.js";
import type { PeriodCalendar } from "../billing/periods.js";
import type { ModelPrice } from "../billing/pricing.js";
import type { ReservationKeeper } from "../billing/reservation-keeper.js";
import type { SettlementQueue } from "../billing/settlement-queue.js";
import type { Config } from "../config/schema.js";
import { type ErrorFormat, GatewayError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import { sendError } from "../server/respond.js";
import type { KeyRef } from "../store/key-store.js";
import { entryTime, type RequestLogEntry } from "../store/request-log-store.js";
import { BodyCapture } from "./body-capture.js";
import type { EndpointClass } from "./endpoints.js";
import { clientResponseHeaders } from "./headers.js";
import type { InFlight } from "./in-flight.js";
import { HeldModelList } from "./model-list.js";
import { submitRelease } from "./release.js";
import { type MeterResult, ResponseMeter } from "./response-meter.js";

const EXCHANGE = Symbol("tunnel-gateway.exchange");
const NO_CHARGE: Charge = {
  tokens: { promptTokens: 0, completionTokens: 0 },
  cost: 0,
  estimated: false,
  rejected: null,
  overage: 0,
};
type Tagged = { [EXCHANGE]?: Exchange };

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
  endpointClass: EndpointClass;
  /** Status the client received; 499 when it went away before a response started. */
  status: number;
  outcome: Outcome;
  promptTokens: number;
  completionTokens: number;
  cost: Micros;
  estimated: boolean;
  /** Why the upstream's usage report was not believed, if it was not. */
  usageRejected: Charge["rejected"];
  /** What a credible report cost beyond the reservation (charged only with billing.overage: charge). */
  overage: Micros;
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
  logger: Logger;
  finished: (request: FinishedRequest) => void;
}

export interface ExchangeInit {
  requestId: string;
  arrivedAt: number;
  method: string;
  ref: KeyRef;
  keyName: string;
  logBodies: boolean;
  model: string | null;
  path: string;
  errorFormat: ErrorFormat;
  endpointClass: EndpointClass;
  /** How the request's usage is metered; null for a free request, which is never charged. */
  usageClass: UsageClass | null;
  price: ModelPrice;
  reservationId: string;
  /** What was reserved (0 for a free request). */
  reserved: Micros;
  /** The body as the client sent it (logged). */
  received: Buffer;
  /** The body as forwarded (with an output cap or stream_options added). */
  body: Buffer;
  /** What to take out of the stream because the gateway asked it for usage; null when it did not. */
  strip: { everyChunk: boolean } | null;
  /** Filter a model list down to these models. */
  filterModels: readonly string[] | null;
  /** Prompt tokens implied by the request, should the upstream report none. */
  promptEstimate: number;
  /** The most completion tokens a credible report may claim (cap × choices; null when unknown). */
  maxCompletionTokens: number | null;
  /** The most prompt tokens a credible report may claim. */
  maxPromptTokens: number;
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
  private held: HeldModelList | null = null;
  private readonly capture: BodyCapture | null;
  private done = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly deps: ExchangeDeps,
    private readonly init: ExchangeInit,
  ) {
    const { logging, requestLog } = deps.config;
    this.capture = init.logBodies
      ? new BodyCapture(Math.max(logging.bodies ? logging.maxBodyBytes : 0, requestLog.maxBodyBytes))
      : null;
  }

  start(proxy: ProxyServer): void {
    this.deps.running.add(this);
    (this.req as Tagged)[EXCHANGE] = this;
    (this.res as Tagged)[EXCHANGE] = this;
    if (this.init.reserved > 0) this.deps.keeper.track(this.init.reservationId, this.init.ref.accountId);
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
    const meter = new ResponseMeter(response.headers, this.init.strip, this.deps.config.metering);
    this.meter = meter;
    const identity = (response.headers["content-encoding"] ?? "identity") === "identity";
    if (this.init.filterModels && this.status === 200 && identity) {
      this.held = new HeldModelList(this.init.filterModels);
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
      if (!this.held.hold(chunk)) this.releaseHeld(response);
      return;
    }
    this.send(response, out);
  }

  onUpstreamEnd(response: IncomingMessage): void {
    const tail = (this.meter as ResponseMeter).end();
    if (this.held) {
      const filtered = this.held.filtered();
      this.held = null;
      const headers = clientResponseHeaders(response.headers, true);
      headers["content-length"] = filtered.length;
      this.res.writeHead(this.status, headers);
      this.capture?.add(filtered);
      this.res.end(filtered);
      return;
    }
    for (const piece of tail) this.capture?.add(piece);
    this.res.end(tail.length > 0 ? Buffer.concat(tail) : undefined);
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
      this.sendError(new GatewayError("upstream_unavailable", upstreamMessage(error)));
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
    this.sendError(
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
      this.sendError(
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

  /** The client drained its buffer: let the upstream's bytes flow again. */
  resumeUpstream(): void {
    this.upstreamResponse?.resume();
  }

  private sendError(error: GatewayError): void {
    sendError(this.res, error, { format: this.init.errorFormat });
  }

  private send(response: IncomingMessage, out: Buffer | Buffer[]): void {
    let writable = true;
    if (Array.isArray(out)) {
      for (const piece of out) {
        this.capture?.add(piece);
        if (!this.res.write(piece)) writable = false;
      }
    } else if (out.length > 0) {
      this.capture?.add(out);
      writable = this.res.write(out);
    }
    if (!writable) {
      response.pause();
      this.res.once("drain", onClientDrain);
    }
  }

  /** The model list is too large to filter: send what was held and pass the rest through. */
  private releaseHeld(response: IncomingMessage): void {
    const held = (this.held as HeldModelList).release();
    this.held = null;
    this.res.writeHead(this.status, clientResponseHeaders(response.headers, false));
    this.send(response, held);
  }

  /**
   * Ends the request exactly once: its charge, its settlement, its report. Whatever fails on the way — the
   * meter, the charging, an observer — the settlement is handed over (releasing the reservation at
   * least), and nothing is thrown out of here.
   */
  private async finish(): Promise<void> {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.deps.running.delete(this);
    this.deps.keeper.untrack(this.init.reservationId);
    let billed: Charge;
    try {
      billed = this.charge(this.meter ? await this.meter.result() : null);
    } catch (error) {
      // A bug of ours: release the reservation rather than charge on a guess, and say so.
      this.deps.logger.error(
        { request_id: this.init.requestId, err: error },
        "could not work out the charge; the reservation is released",
      );
      billed = NO_CHARGE;
    }
    try {
      this.settle(billed);
    } catch (error) {
      this.deps.logger.error(
        { request_id: this.init.requestId, err: error },
        "could not record the settlement; the reservation is released",
      );
      submitRelease(this.deps, { ...this.init, outcome: this.outcome, status: 500 });
    } finally {
      this.deps.inFlight.end();
    }
  }

  /** The facts of the request, as the charging policy weighs them. */
  private charge(result: MeterResult | null): Charge {
    const { init } = this;
    if (init.usageClass === null) return NO_CHARGE;
    return charge({
      usageClass: init.usageClass,
      processed:
        this.forwardedAt > 0 &&
        this.outcome !== "upstream_unavailable" &&
        this.outcome !== "upstream_timeout" &&
        !(this.outcome === "shutdown" && this.status === 0),
      complete: this.outcome === "completed",
      status: this.status,
      reported: result?.usage ?? {},
      estimate: {
        promptTokens: init.promptEstimate,
        completionTokens: this.meter
          ? estimatedCompletionTokens(this.meter.bytes, result?.events ?? null, this.deps.config.estimate)
          : 0,
      },
      maxCompletionTokens: init.maxCompletionTokens,
      maxPromptTokens: init.maxPromptTokens,
      price: init.price,
      reserved: init.reserved,
      overage: this.deps.config.billing.overage,
    });
  }

  private settle(billed: Charge): void {
    const { init, deps } = this;
    const endedAt = performance.now();
    const latencyMs = endedAt - init.arrivedAt;
    const status = this.status === 0 ? statusWithoutResponse(this.outcome, this.res) : this.status;
    const failed = status >= 400 || this.outcome !== "completed";
    const now = deps.now();
    const upstreamTtfbMs = this.firstByteAt > 0 ? this.firstByteAt - this.forwardedAt : null;

    const logEntry: RequestLogEntry = {
      at: entryTime(now),
      request_id: init.requestId,
      method: init.method,
      path: init.path,
      model: init.model,
      status,
      outcome: this.outcome,
      prompt_tokens: billed.tokens.promptTokens,
      completion_tokens: billed.tokens.completionTokens,
      cost: rublesForJson(billed.cost),
      usage_estimated: billed.estimated,
      latency_ms: Math.round(latencyMs),
      upstream_ttfb_ms: upstreamTtfbMs === null ? null : Math.round(upstreamTtfbMs),
    };
    const bodies = this.capture?.bodies(init.received) ?? null;
    const requestLogLimit = deps.config.requestLog.maxBodyBytes;
    const entry = JSON.stringify(logEntry);
    deps.settlements.submit({
      ref: init.ref,
      keyName: init.keyName,
      input: {
        logEntry: entry,
        logEntryWithBodies:
          bodies && requestLogLimit > 0
            ? withBodies(entry, bodies.request(requestLogLimit), bodies.response(requestLogLimit))
            : "",
        reservationId: init.reservationId,
        cost: billed.cost,
        promptTokens: billed.tokens.promptTokens,
        completionTokens: billed.tokens.completionTokens,
        failed,
        estimated: billed.estimated,
        latencyMs,
        periods: deps.calendar.at(now),
        day: deps.calendar.dayOf(now),
      },
    });

    const finished: FinishedRequest = {
      requestId: init.requestId,
      method: init.method,
      path: init.path,
      accountId: init.ref.accountId,
      keyId: init.ref.keyId,
      keyName: init.keyName,
      model: init.model,
      endpointClass: init.endpointClass,
      status,
      outcome: this.outcome,
      promptTokens: billed.tokens.promptTokens,
      completionTokens: billed.tokens.completionTokens,
      cost: billed.cost,
      estimated: billed.estimated,
      usageRejected: billed.rejected,
      overage: billed.overage,
      reserved: init.reserved,
      latencyMs,
      upstreamTtfbMs,
      gatewayMs: (this.forwardedAt || endedAt) - init.arrivedAt,
    };
    if (bodies && deps.config.logging.bodies) {
      const limit = deps.config.logging.maxBodyBytes;
      finished.requestBody = bodies.request(limit);
      finished.responseBody = bodies.response(limit);
    }
    try {
      deps.finished(finished);
    } catch (error) {
      deps.logger.error({ request_id: init.requestId, err: error }, "reporting a finished request failed");
    }
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
