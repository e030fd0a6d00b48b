// The OTEL_* variables as the gateway reads them: off unless an export is configured, the specification's
// endpoint rules per protocol, its defaults, and a start refused naming the variable it cannot honour.

import { describe, expect, it } from "vitest";
import { telemetrySettings } from "../../src/observability/telemetry-settings.js";

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };

describe("telemetrySettings", () => {
  it.each([
    ["nothing set", {}],
    ["only a service name", { OTEL_SERVICE_NAME: "gw" }],
    ["an empty endpoint", { OTEL_EXPORTER_OTLP_ENDPOINT: "" }],
    ["the SDK disabled", { ...ENDPOINT, OTEL_SDK_DISABLED: "TRUE" }],
    ["both exporters none", { ...ENDPOINT, OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }],
  ])("is off with %s", (_, env) => {
    const settings = telemetrySettings(env);
    expect([settings.traces, settings.metrics]).toEqual([null, null]);
  });

  it("turns both signals on with the shared endpoint, each at its path, with the specification's defaults", () => {
    const settings = telemetrySettings(ENDPOINT);
    expect(settings.traces).toEqual({
      protocol: "http/protobuf",
      url: "http://collector:4318/v1/traces",
      sampler: "parentbased_always_on",
      ratio: 1,
      propagate: true,
      batch: {
        scheduledDelayMillis: 5000,
        exportTimeoutMillis: 30_000,
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
      },
    });
    expect(settings.metrics).toEqual({
      protocol: "http/protobuf",
      url: "http://collector:4318/v1/metrics",
      intervalMillis: 60_000,
      timeoutMillis: 30_000,
    });
    expect(settings.logLevel).toBe("info");
  });

  it("takes a signal's own endpoint as it is, and turns on only that signal", () => {
    const settings = telemetrySettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://tempo:4318/otlp/traces",
    });
    expect(settings.traces?.url).toBe("https://tempo:4318/otlp/traces");
    expect(settings.metrics).toBe(null);
  });

  it("appends the signal's path to a shared endpoint that has a path of its own", () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://gw/otlp/" }).traces?.url).toBe(
      "http://gw/otlp/v1/traces",
    );
  });

  it("sends gRPC to the endpoint as it is, or to localhost:4317", () => {
    expect(telemetrySettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).traces?.url).toBe(
      "http://collector:4318",
    );
    expect(
      telemetrySettings({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).traces?.url,
    ).toBe("http://localhost:4317");
  });

  it("lets a signal's protocol override the shared one", () => {
    const settings = telemetrySettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json" });
    expect([settings.traces?.protocol, settings.metrics?.protocol]).toEqual(["http/protobuf", "http/json"]);
  });

  it("turns a signal on by its exporter alone, to the default endpoint, and off by none", () => {
    const settings = telemetrySettings({ OTEL_METRICS_EXPORTER: "otlp" });
    expect(settings.metrics?.url).toBe("http://localhost:4318/v1/metrics");
    expect(settings.traces).toBe(null);
    expect(telemetrySettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "none" }).traces).toBe(null);
  });

  it("reads the sampler, its ratio, the propagators, the batch and the export interval", () => {
    const settings = telemetrySettings({
      ...ENDPOINT,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_PROPAGATORS: "baggage",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "15000",
    });
    expect(settings.traces).toMatchObject({
      sampler: "parentbased_traceidratio",
      ratio: 0.25,
      propagate: false,
      batch: { scheduledDelayMillis: 100 },
    });
    expect(settings.metrics?.intervalMillis).toBe(15_000);
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" },
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of grpc, http\/protobuf, http\/json/,
    ],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "udp" }, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be one of/],
    [{ OTEL_TRACES_SAMPLER: "jaeger_remote" }, /OTEL_TRACES_SAMPLER must be one of always_on/],
    [
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" },
      /OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1/,
    ],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "half" }, /OTEL_TRACES_SAMPLER_ARG/],
    [
      { OTEL_PROPAGATORS: "tracecontext,b3" },
      /OTEL_PROPAGATORS: the gateway has tracecontext, baggage, none; got "b3"/,
    ],
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, /OTEL_TRACES_EXPORTER: the gateway exports over OTLP only/],
    [{ OTEL_METRICS_EXPORTER: "prometheus" }, /served on metrics.port already/],
    [
      { OTEL_BSP_MAX_QUEUE_SIZE: "0" },
      /OTEL_BSP_MAX_QUEUE_SIZE must be a whole number of at least 1; got "0"/,
    ],
    [{ OTEL_METRIC_EXPORT_INTERVAL: "1.5" }, /OTEL_METRIC_EXPORT_INTERVAL must be a whole number/],
    [{ OTEL_LOG_LEVEL: "loud" }, /OTEL_LOG_LEVEL must be one of none, error/],
  ])("refuses %o naming the variable", (env, message) => {
    expect(() => telemetrySettings({ ...ENDPOINT, ...env })).toThrow(message);
  });

  it("refuses an endpoint that is no http(s) URL without repeating its value, which may hold a credential", () => {
    const check = (env: Record<string, string>) => {
      try {
        telemetrySettings(env);
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    const notUrl = check({ OTEL_EXPORTER_OTLP_ENDPOINT: "//secret-token@collector" });
    expect(notUrl).toBe(
      "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL; its value is not a URL",
    );
    const ftp = check({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://user:hunter2@host/" });
    expect(ftp).toBe(
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL; its value is a ftp: URL",
    );
  });
});
