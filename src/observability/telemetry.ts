// OpenTelemetry for the gateway, or nothing, as the request path and the observer see it: this file's
// interfaces, which import nothing of OpenTelemetry. telemetry-start.ts starts what the OTEL_* variables
// configure (the SDK in otel/, which implements these interfaces) or hands out NO_TELEMETRY.

import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "pino";
import type { GatewayRequest, RequestTrace } from "../core/request.js";

/** Starts the trace of a forwarded request (the forwarder calls it once per request, while tracing is on). */
export interface Tracing {
  /** The request arrived (`arrivedAt`, performance.now()); `headers` may carry the client's traceparent. */
  begin(headers: IncomingHttpHeaders, arrivedAt: number): RequestTrace;
}

/** What the observer hands every finished and refused request to, after its log line and Prometheus metrics. */
export interface RequestTelemetry {
  finished(request: GatewayRequest): void;
  refused(request: GatewayRequest): void;
}

export interface Telemetry extends RequestTelemetry {
  /** null while tracing is off: the forwarder then leaves the client's trace headers as they are. */
  readonly tracing: Tracing | null;
  /** Exports what is still buffered, then stops the exporters. */
  shutdown(): Promise<void>;
}

export const NO_TELEMETRY: Telemetry = {
  tracing: null,
  finished() {},
  refused() {},
  async shutdown() {},
};

/** What the SDK is told about the gateway besides the OTEL_* variables. */
export interface TelemetryOptions {
  logger: Logger;
  /** The gateway's version, for the resource's service.version. */
  version: string;
  /** The model server's URL (upstream.url): server.address and server.port of the GenAI spans and metrics. */
  upstreamUrl: string;
  /** gen_ai.provider.name (telemetry.genAiProvider). */
  provider: string;
  /** Most distinct models with series of their own (metrics.maxModelSeries), as on the Prometheus side. */
  maxModelSeries: number;
}
