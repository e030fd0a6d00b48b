// Starting OpenTelemetry from the OTEL_* variables: nothing at all when they configure no signal, a refusal
// naming the variable when one cannot be honoured. (The SDK's start itself: test/e2e/telemetry.test.ts; that
// no @opentelemetry module loads when it is off: telemetry-off.test.ts.)

import pino from "pino";
import { describe, expect, it } from "vitest";
import { NO_TELEMETRY } from "../../src/observability/telemetry.js";
import { startTelemetry } from "../../src/observability/telemetry-start.js";

const options = {
  logger: pino({ level: "silent" }),
  version: "0.0.0",
  upstreamUrl: "http://127.0.0.1:8000",
  provider: "vllm",
  maxModelSeries: 10,
};

describe("starting telemetry", () => {
  it("hands out NO_TELEMETRY when no signal is configured", async () => {
    expect(await startTelemetry({}, options)).toBe(NO_TELEMETRY);
    expect(
      await startTelemetry({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }, options),
    ).toBe(NO_TELEMETRY);
  });

  it("refuses a variable it cannot honour, by name", async () => {
    await expect(startTelemetry({ OTEL_LOG_LEVEL: "loud" }, options)).rejects.toMatchObject({
      name: "ConfigError",
      message: expect.stringMatching(/^OTEL_LOG_LEVEL must be one of .*; got "loud"$/),
    });
  });
});
