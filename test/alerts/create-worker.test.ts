// The delivery worker as the configuration sets it up: the timings it is given are the configuration's, in
// milliseconds.

import { describe, expect, it } from "vitest";
import { createDeliveryWorker } from "../../src/alerts/create-worker.js";
import { configSchema } from "../../src/config/schema.js";
import { NO_METRICS } from "../../src/observability/gateway-metrics.js";
import { captureLogs } from "../helpers/logs.js";
import { openStore } from "../helpers/store.js";

describe("createDeliveryWorker", () => {
  it("gives the worker alerts.delivery's timings in milliseconds and the billing time zone", async () => {
    const store = await openStore();
    try {
      const config = configSchema.parse({
        upstream: { url: "http://127.0.0.1:9" },
        billing: { timezone: "Europe/Moscow" },
        alerts: { delivery: { firstRetrySeconds: 3, maxRetrySeconds: 60, giveUpHours: 2, sweepSeconds: 7 } },
      });
      const worker = createDeliveryWorker(config, {
        stores: store.stores,
        operatorEndpoints: [],
        metrics: NO_METRICS,
        logger: captureLogs().logger,
        now: store.clock.now,
      });
      const { settings } = (worker as unknown as { options: { settings: Record<string, unknown> } }).options;
      expect(settings).toMatchObject({
        firstRetryMs: 3000,
        maxRetryMs: 60_000,
        giveUpMs: 7_200_000,
        sweepIntervalMs: 7000,
        timezone: "Europe/Moscow",
      });
      expect(String(settings.userAgent)).toMatch(/^tunnel-gateway/);
    } finally {
      store.close();
    }
  });
});
