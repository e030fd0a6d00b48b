// One forwarded request from the moment it is admitted, as a small state machine: it streams the upstream's
// response to the client through the meter (with backpressure), turns timeouts and failures into 502/504,
// stops the upstream the instant the client goes away or a shutdown drain ends, writes how it went on the
// request (core/request.ts), and — exactly once, whatever way it ends — hands the request to its end
// (request-end.ts), which settles and reports it.
//
// Event handlers are module-level functions (exchange-events.ts) that find their exchange through a symbol on
// the request and response objects, so the per-request cost is one object, not a bundle of closures.

import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { ProxyServer } from "http-proxy-3";
import type { Logger } from "pino";
import { GatewayError } from "../../core/errors.js";
import type { Outcome, RecordOutcome } from "../../core/outcome.js";
import type { AdmittedRequest, StripMode } from "../../core/request.js";
import type { RequestSharing } from "../../core/sharing.js";
import { sendError } from "../../http/respond.js";
import { type MeterLimits, ResponseMeter } from "../meters/response-meter.js";
import type { UpstreamGate, Wait, Waiter } from "../sharing/upstream-gate.js";
import { BodyCapture } from "./body-capture.js";
import { bodySource } from "./body-source.js";
import {
  type ExchangeEvents,
  onClientClose,
  onClientDrain,
  onProxyError,
  onUpstreamClose,
  onUpstreamData,
  onUpstreamEnd,
  onUpstreamTimeout,
  tag,
} from "./exchange-events.js";
import { clientResponseHeaders } from "./headers.js";
import { HeldModelList } from "./model-list.js";

/** The exchange's place on the path (pipeline.ts's PATH): between `send` and the ending's stages. */
export const RELAY = {
  name: "relay",
  does: "streams the answer back (backpressure, timeouts, 502/504) through the meter, which reads its usage",
} as const;

/** What the send stage decided for one exchange (stages/send.ts). */
export interface RelayPlan {
  /** The body as forwarded (with an output cap, stream_options or a priority written in). */
  readonly forwarded: Buffer;
  /** The body as the client sent it (for the logs, when the key logs bodies). */
  readonly received: Buffer;
  /** What to take out of the stream because the gateway asked it for usage; null when it did not. */
  readonly strip: StripMode | null;
  /** Filter a model list down to these models (GET /v1/models of a key with a model list). */
  readonly filterModels: readonly string[] | null;
  /** The key's rate-limit headers for the client's response, when it has per-minute limits. */
  readonly rateLimitHeaders: OutgoingHttpHeaders | null;
}

/** What every exchange is given: built once by the pipeline, shared by all of them. */
export interface ExchangeDeps {
  /** upstream.timeoutMs: how long the upstream has to begin its answer. */
  timeoutMs: number;
  metering: MeterLimits;
  /** How much of the bodies to capture for a key that logs them (the larger of the two logs' limits). */
  captureBytes: number;
  logger: Logger;
  /** The request is over, whatever way: settle it and report it (request-end.ts). */
  end(request: AdmittedRequest): void;
}

export class Exchange implements ExchangeEvents, Waiter {
  private upstreamRequest: ClientRequest | undefined;
  private upstreamResponse: IncomingMessage | undefined;
  private meter: ResponseMeter | null = null;
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private held: HeldModelList | null = null;
  private readonly capture: BodyCapture | null;
  private done = false;
  private proxy: ProxyServer | null = null;
  /** The gate to the model server, where upstream.maxInFlight is set; and the request's wait there. */
  private gate: UpstreamGate | null = null;
  private wait: Wait | null = null;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly request: AdmittedRequest,
    private readonly plan: RelayPlan,
    private readonly deps: ExchangeDeps,
  ) {
    this.capture = request.logBodies ? new BodyCapture(deps.captureBytes) : null;
  }

  /**
   * Forwards the request — at once, or, given the gate to a model server with a limit, when its turn in the
   * fair queue comes (upstream-gate.ts), with the key's settings there (`sharing`).
   */
  start(proxy: ProxyServer, gate: UpstreamGate | null = null, sharing: RequestSharing | null = null): void {
    const { request } = this;
    // While the exchange runs — waiting for its turn too — the request's reservation is kept alive (a free one
    // too: it holds a request in flight against the key's max_parallel, which its expiry would give back too
    // early), and a shutdown drain's end aborts it.
    request.exchange = this;
    tag(this.req, this);
    tag(this.res, this);
    this.res.on("close", onClientClose);
    if (this.res.destroyed || !this.req.socket.writable) {
      // The client left while the reservation was being made (or its connection was refused by the parser
      // for bytes that followed the body: nothing could answer it).
      request.outcome = "client_aborted";
      void this.finish();
      return;
    }
    this.proxy = proxy;
    if (gate !== null) {
      this.gate = gate;
      const entered = gate.enter(this, sharing as RequestSharing);
      if (entered === "refused") return;
      if (entered !== "forward") {
        this.wait = entered;
        return;
      }
    }
    this.forward();
  }

  /** Its turn at the model server has come: forward it. */
  forward(): void {
    this.wait = null;
    // The client left in this very turn: its close event ends the request and gives the place back.
    if (this.res.destroyed || !this.req.socket.writable) return;
    const { request } = this;
    request.forwardedAt = performance.now();
    // Tracing on: the exchange's span starts now, after any wait for a place, and the model server's
    // traceparent names it.
    if (request.trace !== null) request.trace.forwarding(this.req.headers, request.forwardedAt);
    this.timer = setTimeout(onUpstreamTimeout, this.deps.timeoutMs, this);
    (this.proxy as ProxyServer).web(
      this.req,
      this.res,
      { buffer: bodySource(this.plan.forwarded) },
      onProxyError,
    );
  }

  /** It may not wait for the model server (any longer): answered with the error, never forwarded, never charged. */
  refuse(error: GatewayError): void {
    this.wait = null;
    if (this.done) return;
    this.request.outcome = "refused";
    this.answer(error);
  }

  /** Out of the fair queue, if it waits there. */
  private stopWaiting(): void {
    if (this.wait === null) return;
    this.gate?.leave(this.wait);
    this.wait = null;
  }

  onUpstreamRequest(request: ClientRequest): void {
    this.upstreamRequest = request;
    if (this.timedOut) request.destroy();
  }

  onUpstreamResponse(response: IncomingMessage): void {
    clearTimeout(this.timer);
    const { request } = this;
    request.firstByteAt = performance.now();
    // Too late: the gateway has answered already (a timeout, the end of a shutdown drain) or the client left.
    if (this.done || this.timedOut || this.res.headersSent || this.res.destroyed) {
      response.destroy();
      return;
    }
    tag(response, this);
    this.upstreamResponse = response;
    request.upstreamStatus = response.statusCode ?? 502;
    const { plan } = this;
    const meter = new ResponseMeter(response.headers, plan.strip, this.deps.metering);
    this.meter = meter;
    const identity = (response.headers["content-encoding"] ?? "identity") === "identity";
    if (plan.filterModels && request.upstreamStatus === 200 && identity) {
      this.held = new HeldModelList(plan.filterModels);
    } else {
      this.res.writeHead(request.upstreamStatus, this.headers(response, meter.stripping));
    }
    response.on("data", onUpstreamData);
    response.on("end", onUpstreamEnd);
    response.on("close", onUpstreamClose);
  }

  onUpstreamData(response: IncomingMessage, chunk: Buffer): void {
    if (this.request.firstChunkAt === 0) this.request.firstChunkAt = performance.now();
    const meter = this.meter as ResponseMeter;
    if (this.held) {
      meter.push(chunk);
      if (!this.held.hold(chunk)) this.releaseHeld(response);
    } else if (meter.stripping) {
      this.send(response, meter.push(chunk));
    } else {
      // Reading along: the client gets the chunk first, the meter reads it after.
      if (!this.write(chunk)) this.pauseUpstream(response);
      meter.push(chunk);
    }
  }

  onUpstreamEnd(response: IncomingMessage): void {
    const tail = (this.meter as ResponseMeter).end();
    if (this.held) {
      const filtered = this.held.filtered();
      this.held = null;
      const headers = this.headers(response, true);
      headers["content-length"] = filtered.length;
      this.res.writeHead(this.request.upstreamStatus, headers);
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
    this.cutOff("upstream_reset");
  }

  onUpstreamError(error: NodeJS.ErrnoException): void {
    clearTimeout(this.timer);
    if (this.done || this.res.destroyed) return;
    if (this.timedOut) {
      this.request.outcome = "upstream_timeout";
    } else if (this.request.upstreamStatus === 0) {
      this.request.outcome = "upstream_unavailable";
      const code = error.code ? ` (${error.code})` : "";
      this.answer(new GatewayError("upstream_unavailable", `The model server could not be reached${code}.`));
    } else {
      this.cutOff("upstream_reset");
    }
  }

  onTimeout(): void {
    if (this.request.upstreamStatus !== 0 || this.done) return;
    this.timedOut = true;
    this.request.outcome = "upstream_timeout";
    this.upstreamRequest?.destroy();
    const ms = this.deps.timeoutMs;
    this.answer(new GatewayError("upstream_timeout", `The model server did not answer within ${ms} ms.`));
  }

  /** The drain is over: stop the upstream, end the client's response, bill what was produced. */
  abortForShutdown(): void {
    if (this.done) return;
    this.stopWaiting();
    this.request.outcome = "shutdown";
    this.upstreamRequest?.destroy();
    if (this.request.upstreamStatus === 0 && !this.res.headersSent) {
      // Not counted as the gateway's own error answer: the client is told to retry, as a draining replica should.
      sendError(
        this.res,
        new GatewayError("service_unavailable", "The gateway is shutting down; retry the request."),
        { format: this.request.errorFormat },
      );
    } else {
      this.meter?.abort();
      this.res.destroy();
    }
  }

  onClientClose(): void {
    // A client that leaves while waiting frees its place in the queue at once.
    this.stopWaiting();
    const { request } = this;
    if (!this.res.writableFinished || request.outcome === "shutdown") {
      if (request.outcome === "completed") request.outcome = "client_aborted";
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

  /** Answers with an error of the table (502, 504), which the metrics count as the gateway's own. */
  private answer(error: GatewayError): void {
    this.request.code = error.code;
    sendError(this.res, error, { format: this.request.errorFormat });
  }

  /**
   * A bug while relaying the upstream's answer: logged with its cause, and the request cut off like a stream
   * the upstream cut short (charged for what it had produced), so that one answer cannot end the process.
   */
  failed(error: unknown): void {
    this.deps.logger.error(
      { request_id: this.request.requestId, err: error },
      "relaying the upstream's answer failed",
    );
    if (!this.done) this.cutOff("upstream_reset");
  }

  private cutOff(outcome: Outcome): void {
    this.request.outcome = outcome;
    this.meter?.abort();
    this.res.destroy();
  }

  private send(response: IncomingMessage, out: Buffer | Buffer[]): void {
    let writable = true;
    if (!Array.isArray(out)) writable = this.write(out);
    else if (out.length === 1) writable = this.write(out[0] as Buffer);
    else if (out.length > 1) {
      // Several pieces of one chunk leave in one write to the socket.
      this.res.cork();
      for (const piece of out) writable = this.write(piece) && writable;
      this.res.uncork();
    }
    if (!writable) this.pauseUpstream(response);
  }

  /** The client's buffer is full: no more of the upstream's bytes until it drains. */
  private pauseUpstream(response: IncomingMessage): void {
    response.pause();
    this.res.once("drain", onClientDrain);
  }

  private write(piece: Buffer): boolean {
    if (piece.length === 0) return true;
    this.capture?.add(piece);
    return this.res.write(piece);
  }

  /** The model list is too large to filter: send what was held and pass the rest through. */
  private releaseHeld(response: IncomingMessage): void {
    const held = (this.held as HeldModelList).release();
    this.held = null;
    this.res.writeHead(this.request.upstreamStatus, this.headers(response, false));
    this.send(response, held);
  }

  /** The upstream's headers as the client gets them, with the key's rate-limit headers when it has limits. */
  private headers(response: IncomingMessage, rewritten: boolean): OutgoingHttpHeaders {
    const headers = clientResponseHeaders(response.headers, rewritten);
    const limits = this.plan.rateLimitHeaders;
    if (limits !== null) for (const name in limits) headers[name] = limits[name];
    return headers;
  }

  /** Ends the request exactly once; what it cost and where that goes is request-end.ts's to work out. */
  private async finish(): Promise<void> {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    const { request } = this;
    // No longer running: nothing to abort, no reservation to keep alive.
    request.exchange = null;
    const meter = this.meter;
    if (meter !== null) {
      const result = await meter.result();
      request.metered = true;
      request.usage = result.usage;
      request.events = result.events;
      request.responseBytes = meter.bytes;
    }
    const { upstreamStatus, outcome } = request;
    request.status = upstreamStatus === 0 ? statusWithoutResponse(outcome, this.res) : upstreamStatus;
    if (this.capture !== null) request.bodies = this.capture.bodies(this.plan.received);
    this.deps.end(request);
  }
}

function statusWithoutResponse(outcome: RecordOutcome, res: ServerResponse): number {
  if (outcome === "client_aborted") return 499;
  if (outcome === "shutdown") return 503;
  return res.headersSent ? res.statusCode : 502;
}
