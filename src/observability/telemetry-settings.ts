// Whether OpenTelemetry is on, and how, from the standard OTEL_* variables (the specification's "SDK environment
// variables"): a pure reading of the environment that imports no OpenTelemetry module, so that the gateway
// decides whether to load the SDK at all (telemetry.ts) without loading it. Off unless configured: a signal is
// exported only when OTEL_EXPORTER_OTLP_ENDPOINT, the signal's own endpoint, or an explicit
// OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER=otlp says where to; OTEL_SDK_DISABLED=true turns both off.
//
// The exporters read their connection settings themselves, as the official SDK does (headers, timeout,
// compression, certificates: OTEL_EXPORTER_OTLP_[SIGNAL_]HEADERS and the rest); the endpoint is worked out
// here too, by the specification's rules, so that a URL that cannot be used stops the start naming its variable.
// A value the gateway cannot honour (an unknown sampler or protocol, a propagator or exporter it does not have)
// refuses the start in the same way: telemetry silently not sent is worse than a message at start. Messages
// never repeat an endpoint's value, which may carry a credential.

import { ConfigError } from "../config/config-error.js";

export type OtlpProtocol = "grpc" | "http/protobuf" | "http/json";
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ["grpc", "http/protobuf", "http/json"];

export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";
export const SAMPLERS: readonly SamplerName[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

export interface SignalExport {
  protocol: OtlpProtocol;
  /** Where the signal goes: for OTLP/HTTP the full URL (…/v1/traces), for gRPC the collector's address. */
  url: string;
}

export interface TraceSettings extends SignalExport {
  sampler: SamplerName;
  /** The ratio of the ratio samplers (OTEL_TRACES_SAMPLER_ARG), from 0 to 1. */
  ratio: number;
  /** Whether W3C trace context is taken from the client and passed to the model server (OTEL_PROPAGATORS). */
  propagate: boolean;
  /** The batch span processor (OTEL_BSP_*). */
  batch: {
    scheduledDelayMillis: number;
    exportTimeoutMillis: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
  };
}

export interface MetricSettings extends SignalExport {
  /** OTEL_METRIC_EXPORT_INTERVAL and OTEL_METRIC_EXPORT_TIMEOUT (ms). */
  intervalMillis: number;
  timeoutMillis: number;
}

export const LOG_LEVELS = ["none", "error", "warn", "info", "debug", "verbose", "all"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface TelemetrySettings {
  traces: TraceSettings | null;
  metrics: MetricSettings | null;
  /** How much of the SDK's own messages reach the log (OTEL_LOG_LEVEL). */
  logLevel: LogLevel;
}

export type Env = Readonly<Record<string, string | undefined>>;

const SIGNALS = {
  traces: { name: "TRACES", path: "v1/traces" },
  metrics: { name: "METRICS", path: "v1/metrics" },
} as const;

/** The propagators the gateway has: W3C trace context, and baggage, which it forwards untouched anyway. */
const PROPAGATORS = new Set(["tracecontext", "baggage", "none"]);

/** Reads the OTEL_* variables; throws a ConfigError naming the variable whose value cannot be honoured. */
export function telemetrySettings(env: Env): TelemetrySettings {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") {
    return { traces: null, metrics: null, logLevel: "none" };
  }
  const traces = exported(env, "traces");
  const metrics = exported(env, "metrics");
  const logLevel = value(env, "OTEL_LOG_LEVEL")?.toLowerCase() ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`OTEL_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got "${logLevel}"`);
  }
  return {
    logLevel: logLevel as LogLevel,
    traces: traces && {
      ...traces,
      ...sampler(env),
      propagate: propagates(env),
      batch: {
        scheduledDelayMillis: count(env, "OTEL_BSP_SCHEDULE_DELAY", 5000, 0),
        exportTimeoutMillis: count(env, "OTEL_BSP_EXPORT_TIMEOUT", 30_000, 1),
        maxQueueSize: count(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048, 1),
        maxExportBatchSize: count(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, 1),
      },
    },
    metrics: metrics && {
      ...metrics,
      intervalMillis: count(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000, 1),
      timeoutMillis: count(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000, 1),
    },
  };
}

/** The signal's export over OTLP, or null when it is not configured (or its exporter is "none"). */
function exported(env: Env, signal: keyof typeof SIGNALS): SignalExport | null {
  const { name, path } = SIGNALS[signal];
  const exporterVariable = `OTEL_${name}_EXPORTER`;
  const exporters = list(value(env, exporterVariable));
  const signalEndpoint = value(env, `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`);
  const endpoint = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (exporters === null) {
    if (signalEndpoint === undefined && endpoint === undefined) return null;
  } else {
    const others = exporters.filter((exporter) => exporter !== "otlp" && exporter !== "none");
    if (others.length > 0) {
      throw new ConfigError(
        `${exporterVariable}: the gateway exports over OTLP only ("otlp" or "none"); got "${others.join(",")}"` +
          (signal === "metrics" && others.includes("prometheus")
            ? ": its Prometheus metrics are served on metrics.port already"
            : ""),
      );
    }
    if (!exporters.includes("otlp")) return null;
  }
  const protocolVariable =
    value(env, `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`) !== undefined
      ? `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = value(env, protocolVariable) ?? "http/protobuf";
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new ConfigError(
      `${protocolVariable} must be one of ${OTLP_PROTOCOLS.join(", ")}; got "${protocol}"`,
    );
  }
  const otlp = protocol as OtlpProtocol;
  if (signalEndpoint !== undefined) {
    return { protocol: otlp, url: checkedUrl(signalEndpoint, `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`) };
  }
  if (otlp === "grpc") {
    return {
      protocol: otlp,
      url: checkedUrl(endpoint ?? "http://localhost:4317", "OTEL_EXPORTER_OTLP_ENDPOINT"),
    };
  }
  // OTLP/HTTP: the signal's path is appended to the shared endpoint, whatever path that has already.
  const base = endpoint ?? "http://localhost:4318";
  const url = `${base.endsWith("/") ? base : `${base}/`}${path}`;
  return { protocol: otlp, url: checkedUrl(url, "OTEL_EXPORTER_OTLP_ENDPOINT") };
}

function sampler(env: Env): { sampler: SamplerName; ratio: number } {
  const name = value(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  if (!(SAMPLERS as readonly string[]).includes(name)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}; got "${name}"`);
  }
  const arg = value(env, "OTEL_TRACES_SAMPLER_ARG");
  if (arg === undefined || !name.endsWith("traceidratio")) return { sampler: name as SamplerName, ratio: 1 };
  const ratio = Number(arg);
  if (arg.trim() === "" || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 for ${name}; got "${arg}"`);
  }
  return { sampler: name as SamplerName, ratio };
}

function propagates(env: Env): boolean {
  const names = list(value(env, "OTEL_PROPAGATORS")) ?? ["tracecontext", "baggage"];
  const unknown = names.filter((name) => !PROPAGATORS.has(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `OTEL_PROPAGATORS: the gateway has ${[...PROPAGATORS].join(", ")}; got "${unknown.join(",")}"`,
    );
  }
  return names.includes("tracecontext");
}

/** A whole number of at least `min`, or the default when the variable is not set. */
function count(env: Env, variable: string, fallback: number, min: number): number {
  const raw = value(env, variable);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < min) {
    throw new ConfigError(`${variable} must be a whole number of at least ${min}; got "${raw}"`);
  }
  return parsed;
}

function checkedUrl(url: string, variable: string): string {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new ConfigError(`${variable} must be an http:// or https:// URL; its value is not a URL`);
  }
  if (scheme !== "http:" && scheme !== "https:") {
    throw new ConfigError(`${variable} must be an http:// or https:// URL; its value is a ${scheme} URL`);
  }
  return url;
}

/** A variable's value, trimmed; an empty one counts as not set, as the specification says. */
function value(env: Env, variable: string): string | undefined {
  const raw = env[variable]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function list(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  return raw
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
}
