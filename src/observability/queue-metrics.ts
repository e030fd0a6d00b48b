// The fair queue's series (docs/fair-sharing.md): how long each request waited for a place at the model
// server, per account, and at scrape time what waits per account and what holds a place. Accounts go through a
// SeriesCap, so a million accounts cannot blow up a scrape; an account that stops waiting reads 0 rather than
// vanishing, so that a graph of it drops to the floor.

import type { Gauge } from "prom-client";
import type { GatewayRequest } from "../core/request.js";
import { type HistogramSeries, histogramSeries } from "./fast-series.js";
import type { QueueProbe } from "./gateway-metrics.js";
import { METRICS } from "./metric-definitions.js";
import type { Built } from "./metric-registry.js";
import { SeriesCap } from "./series-cap.js";

export class QueueSeries {
  private readonly accounts: SeriesCap;
  private readonly waits = new Map<string, HistogramSeries>();
  /** Accounts that have had requests waiting: their gauge reads 0 once none does. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly m: Pick<Built, "queueWait">,
    maxAccountSeries: number,
  ) {
    this.accounts = new SeriesCap(maxAccountSeries);
  }

  /** A request that asked the gate for a place (queuedAt set): its wait, 0 if it got one at once. */
  request(record: GatewayRequest): void {
    if (record.queuedAt === 0) return;
    const account = this.accounts.label(record.accountId ?? "");
    let series = this.waits.get(account);
    if (series === undefined) {
      series = histogramSeries(this.m.queueWait, { account }, METRICS.queueWait.buckets);
      this.waits.set(account, series);
    }
    series.observe(record.queueMs / 1000);
  }

  /** Fills the per-account queue gauge from the gate at scrape time. */
  collectWaiting(gauge: Gauge<string>, probe: QueueProbe | null): void {
    if (probe === null) return;
    const counts = new Map<string, number>();
    for (const [accountId, waiting] of probe.waitingAccounts()) {
      const account = this.accounts.label(accountId);
      counts.set(account, (counts.get(account) ?? 0) + waiting);
      this.seen.add(account);
    }
    gauge.reset();
    for (const account of this.seen) gauge.labels(account).set(counts.get(account) ?? 0);
  }
}
