// With no OTEL_* variable configuring an export, the gateway loads no module of OpenTelemetry at all: the built
// gateway runs as a process whose every @opentelemetry import a resolution hook names on stderr
// (test/helpers/module-log/), serves a request, and stops. The same process with an endpoint set names them,
// which shows the hook would see them.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { spawnGateway } from "../helpers/gateway-process.js";
import { testPrefix } from "../helpers/store.js";

const HOOK = pathToFileURL(join(import.meta.dirname, "../helpers/module-log/register.mjs")).href;
/** Whatever the suite's own environment says, none of these configures an export here. */
const UNSET = {
  OTEL_EXPORTER_OTLP_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "",
  OTEL_TRACES_EXPORTER: "",
  OTEL_METRICS_EXPORTER: "",
};

async function importsOf(env: Record<string, string>): Promise<string[]> {
  const gateway = await spawnGateway(
    { redis: { url: inject("redisUrl"), prefix: testPrefix() }, upstream: { url: "http://127.0.0.1:9" } },
    { ...UNSET, NODE_OPTIONS: `--import=${HOOK}`, ...env },
  );
  // Refused for its key, it goes through the forwarder, the observer and the log line all the same.
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer sk-tunnel-${"0".repeat(64)}`,
      traceparent: `00-${"1".repeat(32)}-${"2".repeat(16)}-01`,
    },
    body: "{}",
  });
  expect(res.status).toBe(401);
  await res.text();
  expect(await gateway.stop()).toBe(0);
  return gateway
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("imports "));
}

describe("telemetry off", () => {
  it("loads no module of OpenTelemetry while no OTEL_* variable configures an export", async () => {
    expect(await importsOf({})).toEqual([]);
  });

  it("loads the SDK once an endpoint is set (the hook sees its imports)", async () => {
    // Nothing sampled and no metrics: nothing to send to an endpoint where no one listens.
    const imports = await importsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_TRACES_SAMPLER: "always_off",
      OTEL_METRICS_EXPORTER: "none",
    });
    expect(imports.some((line) => line.includes("/@opentelemetry/sdk-trace/"))).toBe(true);
  });
});
