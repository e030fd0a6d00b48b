// The fair queue's series in a real prom-client registry: each request that asked for a place observes its
// wait (0 when placed at once) under its account, one that never asked observes nothing; at scrape time the
// waiting gauge reads what waits per account, an account that stopped waiting reads 0 rather than vanishing,
// and accounts beyond the cap fold into "other", in the wait and the gauge alike.

import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { QueueProbe } from "../../src/observability/gateway-metrics.js";
import { METRIC_PREFIX } from "../../src/observability/metric-definitions.js";
import { buildMetrics } from "../../src/observability/metric-registry.js";
import { QueueSeries } from "../../src/observability/queue-metrics.js";
import { requestWith } from "../helpers/requests.js";

const WAIT = `${METRIC_PREFIX}queue_wait_seconds`;

function series(maxAccountSeries: number) {
  const registry = new Registry();
  const built = buildMetrics(registry, {});
  return { registry, built, queue: new QueueSeries(built, maxAccountSeries) };
}

async function waits(registry: Registry): Promise<Record<string, { count: number; sum: number }>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === WAIT);
  const out: Record<string, { count: number; sum: number }> = {};
  for (const value of metric?.values ?? []) {
    const account = String(value.labels.account);
    out[account] ??= { count: 0, sum: 0 };
    if (String((value as { metricName?: string }).metricName).endsWith("_count"))
      out[account].count = value.value;
    if (String((value as { metricName?: string }).metricName).endsWith("_sum"))
      out[account].sum = value.value;
  }
  return out;
}

const queued = (accountId: string, queueMs: number) =>
  requestWith({ accountId, keyId: "key_a", queuedAt: 1000, dequeuedAt: 1000 + queueMs });

function probe(waiting: [string, number][]): QueueProbe {
  return { inUse: 0, waitingAccounts: () => waiting };
}

describe("QueueSeries.request", () => {
  it("observes each queued request's wait in seconds under its account, 0 for one placed at once", async () => {
    const { registry, queue } = series(10);
    queue.request(queued("acme", 1500));
    queue.request(queued("acme", 0));
    queue.request(queued("beta", 250));
    expect(await waits(registry)).toEqual({ acme: { count: 2, sum: 1.5 }, beta: { count: 1, sum: 0.25 } });
  });

  it("observes nothing for a request that never asked for a place", async () => {
    const { registry, queue } = series(10);
    queue.request(requestWith({ accountId: "acme", keyId: "key_a" }));
    expect(await waits(registry)).toEqual({});
  });

  it("folds accounts beyond the cap into other, and a request without an account under the empty label", async () => {
    const { registry, queue } = series(1);
    queue.request(queued("acme", 1000));
    queue.request(queued("beta", 1000));
    queue.request(queued("gamma", 1000));
    expect(await waits(registry)).toEqual({ acme: { count: 1, sum: 1 }, other: { count: 2, sum: 2 } });
    const unkeyed = series(5);
    unkeyed.queue.request(requestWith({ queuedAt: 1, dequeuedAt: 2 }));
    expect(Object.keys(await waits(unkeyed.registry))).toEqual([""]);
  });
});

describe("QueueSeries.collectWaiting", () => {
  it("reads what waits per account, an account that stopped waiting as 0, and nothing without a gate", async () => {
    const { built, queue } = series(1);
    const waiting = built.queueRequests;
    queue.collectWaiting(waiting, null);
    expect((await waiting.get()).values).toEqual([]);
    queue.collectWaiting(
      waiting,
      probe([
        ["acme", 2],
        ["beta", 1],
        ["gamma", 3],
      ]),
    );
    const first = (await waiting.get()).values.map((v) => [v.labels.account, v.value]);
    expect(first).toEqual([
      ["acme", 2],
      ["other", 4],
    ]);
    queue.collectWaiting(waiting, probe([]));
    expect((await waiting.get()).values.map((v) => [v.labels.account, v.value])).toEqual([
      ["acme", 0],
      ["other", 0],
    ]);
  });
});
