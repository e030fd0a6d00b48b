// The SDK started from the settings the OTEL_* variables make, exporting to a real OTLP/HTTP receiver (a whole
// gateway's export is test/e2e/telemetry.test.ts): each signal on only when configured, the sampler named by
// OTEL_TRACES_SAMPLER honoured, the resource naming the gateway and its version, the start logged, the SDK's
// own messages written as the gateway's log lines, and a shutdown that exports what
// is buffered and does not wait long for a collector that is away.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenTelemetry } from "../../../src/observability/otel/sdk.js";
import { telemetrySettings } from "../../../src/observability/telemetry-settings.js";
import { freePort } from "../../helpers/http.js";
import { captureLogs } from "../../helpers/logs.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../helpers/otlp-receiver.js";
import { requestWith } from "../../helpers/requests.js";

let otlp: OtlpReceiver;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
});
afterAll(() => otlp?.close());

async function started(env: Record<string, string>, endpoint = otlp.url) {
  const logs = captureLogs();
  const settings = telemetrySettings({
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    ...env,
  });
  const telemetry = await startOpenTelemetry(settings, {
    logger: logs.logger,
    version: "9.9.9",
    upstreamUrl: "http://127.0.0.1:8000",
    provider: "vllm",
    maxModelSeries: 10,
  });
  return { telemetry, logs };
}

/** A chat completion traced from its arrival by `telemetry`, `requestId` on its span. */
function finish(telemetry: Awaited<ReturnType<typeof started>>["telemetry"], requestId: string): void {
  const trace = telemetry.tracing?.begin({}, 1000) ?? null;
  const request = requestWith({
    requestId,
    method: "POST",
    path: "/v1/chat/completions",
    endpointClass: "generation",
    outcome: "completed",
    status: 200,
    model: "m",
    arrivedAt: 1000,
    forwardedAt: 1001,
    latencyMs: 50,
    promptTokens: 3,
    completionTokens: 2,
    trace,
  });
  trace?.forwarding({}, 1001);
  telemetry.finished(request);
}
const spansOf = (requestId: string) =>
  otlp.spans().filter((span) => span.attributes["tunnel_gateway.request_id"] === requestId);

describe("startOpenTelemetry", () => {
  it("exports traces and GenAI metrics when both are configured, under the gateway's name and version", async () => {
    const { telemetry, logs } = await started({});
    expect(telemetry.tracing).not.toBeNull();
    finish(telemetry, "both-1");
    await telemetry.shutdown();
    const server = spansOf("both-1")[0];
    expect(server?.resource).toMatchObject({ "service.name": "tunnel-gateway", "service.version": "9.9.9" });
    expect(otlp.metrics().map((metric) => metric.name)).toContain("gen_ai.client.operation.duration");
    expect(logs.lines.find((line) => line.msg === "OpenTelemetry export on")).toMatchObject({
      traces: { protocol: "http/json" },
      metrics: { protocol: "http/json" },
    });
  });

  it("exports the GenAI metrics cumulative, or delta when OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE asks", async () => {
    const temporalities: Record<string, number[]> = {};
    for (const preference of ["cumulative", "delta", "lowmemory", undefined]) {
      const receiver = await startOtlpReceiver();
      // The OTLP exporter reads its preference from the environment, not from the settings.
      if (preference !== undefined)
        process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = preference;
      try {
        const { telemetry } = await started({ OTEL_TRACES_EXPORTER: "none" }, receiver.url);
        finish(telemetry, `temporality-${preference}`);
        await telemetry.shutdown();
      } finally {
        delete process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
        await receiver.close();
      }
      const metrics = receiver.metrics();
      expect(metrics.map((metric) => metric.name).sort()).toEqual([
        "gen_ai.client.operation.duration",
        "gen_ai.client.token.usage",
      ]);
      temporalities[String(preference)] = [...new Set(metrics.map((metric) => metric.temporality))];
    }
    expect(temporalities).toEqual({ cumulative: [2], delta: [1], lowmemory: [1], undefined: [2] });
  });

  it("starts no tracing when only metrics are configured, and no metrics when only traces are", async () => {
    const metricsOnly = await started({ OTEL_TRACES_EXPORTER: "none" });
    expect(metricsOnly.telemetry.tracing).toBeNull();
    finish(metricsOnly.telemetry, "metrics-only");
    await metricsOnly.telemetry.shutdown();
    expect(spansOf("metrics-only")).toEqual([]);
    const tracesOnly = await started({ OTEL_METRICS_EXPORTER: "none" });
    expect(tracesOnly.logs.lines.find((line) => line.msg === "OpenTelemetry export on")?.metrics).toBeNull();
    finish(tracesOnly.telemetry, "traces-only");
    await tracesOnly.telemetry.shutdown();
    expect(spansOf("traces-only")).toHaveLength(1);
  });

  it("honours the sampler: always_off records nothing, always_on everything", async () => {
    const off = await started({ OTEL_TRACES_SAMPLER: "always_off", OTEL_METRICS_EXPORTER: "none" });
    finish(off.telemetry, "sampled-off");
    await off.telemetry.shutdown();
    expect(spansOf("sampled-off")).toEqual([]);
    const on = await started({ OTEL_TRACES_SAMPLER: "always_on", OTEL_METRICS_EXPORTER: "none" });
    finish(on.telemetry, "sampled-on");
    await on.telemetry.shutdown();
    expect(spansOf("sampled-on")).toHaveLength(1);
    const ratio = await started({
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
      OTEL_METRICS_EXPORTER: "none",
    });
    finish(ratio.telemetry, "sampled-ratio-0");
    await ratio.telemetry.shutdown();
    expect(spansOf("sampled-ratio-0")).toEqual([]);
  });

  it("writes the SDK's own messages as the gateway's log lines, and stops within 5 s when the collector is away", async () => {
    const away = `http://127.0.0.1:${await freePort()}`;
    const { telemetry, logs } = await started({ OTEL_METRICS_EXPORTER: "none", OTEL_LOG_LEVEL: "all" }, away);
    finish(telemetry, "to-nowhere");
    const stopping = Date.now();
    await telemetry.shutdown();
    expect(Date.now() - stopping).toBeLessThan(6000);
    expect(logs.lines.some((line) => line.component === "opentelemetry")).toBe(true);
  });
});
