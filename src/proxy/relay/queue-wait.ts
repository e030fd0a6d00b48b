// The queue wait: a request to a model server with a limit (upstream.maxInFlight) asks the gate for a place
// before it is forwarded, and waits for its turn in the fair queue when there is none (sharing/upstream-gate.ts).
// It comes before the answer, so it is not a relay handler (those see the response) but the request side's one
// concern, undici's onRequestStart: the exchange starts through it and is told when to forward, or to answer
// with the refusal, or that a shutdown began. Made only for a request that goes through the gate; without a
// limit the exchange forwards at once and this object never exists.

import type { GatewayError } from "../../core/errors.js";
import type { GatewayRequest } from "../../core/request.js";
import type { RequestSharing } from "../../core/sharing.js";
import type { UpstreamGate, Wait, Waiter } from "../sharing/upstream-gate.js";

/** What the queue wait asks of the exchange it holds back. */
export interface Queued {
  readonly request: GatewayRequest;
  /** Its turn has come: forward it now. */
  forward(): void;
  /** It may not wait (any longer): answer with the error; it is never forwarded. */
  refuse(error: GatewayError): void;
  abortForShutdown(): void;
}

export class QueueWait implements Waiter {
  private wait: Wait | null = null;

  constructor(
    private readonly exchange: Queued,
    private readonly gate: UpstreamGate,
  ) {}

  get request(): GatewayRequest {
    return this.exchange.request;
  }

  /** Asks for a place: forwards at once when there is one; refused or waiting otherwise. */
  enter(sharing: RequestSharing): void {
    const entered = this.gate.enter(this, sharing);
    if (entered === "forward") this.exchange.forward();
    else if (entered !== "refused") this.wait = entered;
  }

  /** Out of the fair queue, if it waits there (its client left, a shutdown drain ended). */
  leave(): void {
    if (this.wait === null) return;
    this.gate.leave(this.wait);
    this.wait = null;
  }

  forward(): void {
    this.wait = null;
    this.exchange.forward();
  }

  refuse(error: GatewayError): void {
    this.wait = null;
    this.exchange.refuse(error);
  }

  abortForShutdown(): void {
    this.exchange.abortForShutdown();
  }
}
