// One forwarded request from the moment it is admitted, as a small state machine: the core relay. It forwards
// the request (through the queue wait, queue-wait.ts, when the model server has a limit), streams the upstream's
// response to the client with backpressure, turns timeouts and failures into 502/504, stops the upstream the
// instant the client goes away or a shutdown drain ends, writes how it went on the request (core/request.ts),
// and — exactly once, whatever way it ends — hands the request to its end (request-end.ts), which settles and
// reports it.
//
// The answer's optional concerns are relay handlers composed around it (relay-handler.ts, compose.ts): the
// answer goes through them and reaches the exchange, the last handler, which writes it to the client.
//
// Event handlers are module-level functions (exchange-events.ts) that find their exchange through a symbol on
// the request and response objects, so the per-request cost is one object, not a bundle of closures, plus one
// per concern the request needs.

import type {
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";
import { performance } from "node:perf_hooks";
import type { ProxyServer } from "http-proxy-3";
import { GatewayError } from "../../core/errors.js";
import type { Outcome, RecordOutcome } from "../../core/outcome.js";
import type { AdmittedRequest } from "../../core/request.js";
import type { RequestSharing } from "../../core/sharing.js";
import { sendError } from "../../http/respond.js";
import type { UpstreamGate } from "../sharing/upstream-gate.js";
import { bodySource } from "./body-source.js";
import { composeHandlers } from "./compose.js";
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
import { type Queued, QueueWait } from "./queue-wait.js";
import type { RelayHandler } from "./relay-handler.js";
import type { ExchangeDeps, RelayPlan } from "./relay-plan.js";

export { type ExchangeDeps, RELAY, type RelayPlan } from "./relay-plan.js";

export class Exchange implements ExchangeEvents, Queued, RelayHandler {
  private upstreamRequest: ClientRequest | undefined;
  private upstreamResponse: IncomingMessage | undefined;
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  /** Waiting for the client's buffer to drain. */
  private paused = false;
  private proxy: ProxyServer | null = null;
  /** The request's wait for a place at a model server with a limit (upstream.maxInFlight); null without. */
  private queue: QueueWait | null = null;
  /** The first of the handlers the answer goes through (compose.ts); the last of them is this exchange. */
  private readonly head: RelayHandler;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly request: AdmittedRequest,
    private readonly plan: RelayPlan,
    private readonly deps: ExchangeDeps,
  ) {
    this.head = composeHandlers(this, res, request, plan, deps);
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
    if (gate === null) {
      this.forward();
      return;
    }
    this.queue = new QueueWait(this, gate);
    this.queue.enter(sharing as RequestSharing);
  }

  /** Its turn at the model server has come: forward it. */
  forward(): void {
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
    if (this.done) return;
    this.request.outcome = "refused";
    this.answer(error);
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
    const upstream = response.headers;
    this.head.onResponseStart(request.upstreamStatus, clientResponseHeaders(upstream, false), upstream);
    response.on("data", onUpstreamData);
    response.on("end", onUpstreamEnd);
    response.on("close", onUpstreamClose);
  }

  onUpstreamData(_response: IncomingMessage, chunk: Buffer): void {
    if (this.request.firstChunkAt === 0) this.request.firstChunkAt = performance.now();
    this.head.onResponseData(chunk);
  }

  onUpstreamEnd(_response: IncomingMessage): void {
    this.head.onResponseEnd();
  }

  // The exchange as the last relay handler: what the handlers before it hand on goes to the client.

  onResponseStart(status: number, headers: OutgoingHttpHeaders, _upstream: IncomingHttpHeaders): void {
    this.res.writeHead(status, headers);
  }

  onResponseData(chunk: Buffer): void {
    if (chunk.length === 0) return;
    // The client's buffer is full: no more of the upstream's bytes until it drains.
    if (!this.res.write(chunk) && !this.paused) {
      this.paused = true;
      this.upstreamResponse?.pause();
      this.res.once("drain", onClientDrain);
    }
  }

  onResponseEnd(): void {
    this.res.end();
  }

  onResponseAbort(): void {}

  onFinish(): undefined {
    return undefined;
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
    this.queue?.leave();
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
      this.head.onResponseAbort();
      this.res.destroy();
    }
  }

  onClientClose(): void {
    // A client that leaves while waiting frees its place in the queue at once.
    this.queue?.leave();
    const { request } = this;
    if (!this.res.writableFinished || request.outcome === "shutdown") {
      if (request.outcome === "completed") request.outcome = "client_aborted";
      // http-proxy-3 destroys the upstream request; the meter keeps what it has read so far. (After a
      // complete response the meter may still be decompressing its copy, and is left to finish.)
      this.head.onResponseAbort();
    }
    void this.finish();
  }

  /** The client drained its buffer: let the upstream's bytes flow again. */
  resumeUpstream(): void {
    this.paused = false;
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
    this.head.onResponseAbort();
    this.res.destroy();
  }

  /** Ends the request exactly once; what it cost and where that goes is request-end.ts's to work out. */
  private async finish(): Promise<void> {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    const { request } = this;
    // No longer running: nothing to abort, no reservation to keep alive.
    request.exchange = null;
    // What each concern learned (the meter's usage, the captured bodies) is written on the request first.
    const learning = this.head.onFinish(request);
    if (learning !== undefined) await learning;
    const { upstreamStatus, outcome } = request;
    request.status = upstreamStatus === 0 ? statusWithoutResponse(outcome, this.res) : upstreamStatus;
    this.deps.end(request);
  }
}

function statusWithoutResponse(outcome: RecordOutcome, res: ServerResponse): number {
  if (outcome === "client_aborted") return 499;
  if (outcome === "shutdown") return 503;
  return res.headersSent ? res.statusCode : 502;
}
