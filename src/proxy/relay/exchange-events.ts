// The event listeners of every exchange: module-level functions, registered once per request object, that
// find their Exchange through a symbol on the request and response, so that the per-request cost is one
// object, not a bundle of closures. What they call is ExchangeEvents, which Exchange implements.

import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";

/** What the listeners call on the exchange a request or response belongs to. */
export interface ExchangeEvents {
  onUpstreamRequest(request: ClientRequest): void;
  onUpstreamResponse(response: IncomingMessage): void;
  onUpstreamData(response: IncomingMessage, chunk: Buffer): void;
  onUpstreamEnd(response: IncomingMessage): void;
  onUpstreamClose(response: IncomingMessage): void;
  onUpstreamError(error: NodeJS.ErrnoException): void;
  onTimeout(): void;
  onClientClose(): void;
  resumeUpstream(): void;
  /** An exception thrown while relaying the answer: fails this one request. */
  failed(error: unknown): void;
}

const EXCHANGE = Symbol("tunnel-gateway.exchange");
type Tagged = { [EXCHANGE]?: ExchangeEvents };

/** Marks a request or response object as belonging to an exchange. */
export function tag(target: object, exchange: ExchangeEvents): void {
  (target as Tagged)[EXCHANGE] = exchange;
}

export function exchangeOf(target: object): ExchangeEvents | undefined {
  return (target as Tagged)[EXCHANGE];
}

// The upstream's events run outside any request handler's try: an exception thrown while relaying an answer
// would end the process. A bug there fails that one request instead (see Exchange.failed).

export function onUpstreamData(this: IncomingMessage, chunk: Buffer): void {
  const exchange = exchangeOf(this);
  try {
    exchange?.onUpstreamData(this, chunk);
  } catch (error) {
    exchange?.failed(error);
  }
}

export function onUpstreamEnd(this: IncomingMessage): void {
  const exchange = exchangeOf(this);
  try {
    exchange?.onUpstreamEnd(this);
  } catch (error) {
    exchange?.failed(error);
  }
}

export function onUpstreamClose(this: IncomingMessage): void {
  const exchange = exchangeOf(this);
  try {
    exchange?.onUpstreamClose(this);
  } catch (error) {
    exchange?.failed(error);
  }
}

export function onClientClose(this: ServerResponse): void {
  exchangeOf(this)?.onClientClose();
}

export function onClientDrain(this: ServerResponse): void {
  exchangeOf(this)?.resumeUpstream();
}

export function onUpstreamTimeout(exchange: ExchangeEvents): void {
  exchange.onTimeout();
}

export function onProxyError(error: Error, req: IncomingMessage): void {
  exchangeOf(req)?.onUpstreamError(error as NodeJS.ErrnoException);
}
