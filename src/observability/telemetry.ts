// OpenTelemetry for the gateway, or nothing. The OTEL_* variables decide (telemetry-settings.ts); with neither
// traces nor metrics configured the gateway runs with NO_TELEMETRY and no @opentelemetry module is ever loaded:
// the SDK is imported here, dynamically, and only when a signal is on. What the request path and the observer
// see is this file's interfaces, which import nothing of OpenTelemetry.

import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "pino";
import type { GatewayRequest, RequestTrace } from "../core/request.js";
import { type Env, telemetrySettings } from "./telemetry-settings.js";

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

/**
 * Reads the OTEL_* variables and starts what they configure; NO_TELEMETRY when they configure nothing. Throws a
 * ConfigError naming the variable whose value the gateway cannot honour.
 */
export async function startTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  const settings = telemetrySettings(env);
  if (settings.traces === null && settings.metrics === null) return NO_TELEMETRY;
  const { startOpenTelemetry } = await import("./otel/sdk.js");
  return startOpenTelemetry(settings, options);
}
