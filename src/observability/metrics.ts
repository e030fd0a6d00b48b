// The metrics of finished and refused requests, settlements and Redis, built from their declarations
// (metric-definitions.ts) into one registry. Label sets are bounded: models and keys go through a SeriesCap,
// and a key's series carry only its current name, so that renaming a key again and again cannot blow up a
// scrape either. The series the request path updates are made once and written directly (fast-series.ts),
// so the request path does not validate and hash label sets. With metrics off, NO_METRICS
// (gateway-metrics.ts) takes their place.

import { collectDefaultMetrics, type Gauge, Registry } from "prom-client";
import type { AttemptResult } from "../alerts/delivery-plan.js";
import { ERRORS } from "../core/errors.js";
import { EVENT_TYPES, isEventType } from "../core/event-types.js";
import { IDENTITY_EVENT_NAMES, IDENTITY_EVENTS, type IdentityEventName } from "../core/identity-events.js";
import { type Micros, rublesAsFloat } from "../core/money.js";
import type { Outcome } from "../core/outcome.js";
import type { GatewayRequest } from "../core/request.js";
import { REJECT_REASONS } from "../core/usage.js";
import { SCRIPT_NAMES } from "../store/scripts.js";
import {
  type CounterSeries,
  counterSeries,
  type GaugeSeries,
  gaugeSeries,
  type HistogramSeries,
  histogramSeries,
} from "./fast-series.js";
import type { GatewayMetrics, MetricsOptions, MetricsProbes, RunningKey } from "./gateway-metrics.js";
import { KeyBudgets, type KeyWindowSample } from "./key-budgets.js";
import { METRICS, type MetricKey } from "./metric-definitions.js";
import { type Built, buildMetrics } from "./metric-registry.js";
import { QueueSeries } from "./queue-metrics.js";
import { OTHER, SeriesCap } from "./series-cap.js";

export type UpstreamFailure = "refused" | "reset" | "timeout" | "5xx";
export const UPSTREAM_FAILURES: readonly UpstreamFailure[] = ["refused", "reset", "timeout", "5xx"];

const FAILURE_OF: Partial<Record<Outcome, UpstreamFailure>> = {
  upstream_unavailable: "refused",
  upstream_timeout: "timeout",
  upstream_reset: "reset",
};

const ATTEMPT_RESULTS: readonly AttemptResult[] = ["delivered", "retried", "failed"];

/** The request path's series, one per label set, made once and kept; bounded as the series are. */
function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let series = cache.get(key);
  if (series === undefined) {
    series = make();
    cache.set(key, series);
  }
  return series;
}

export class Metrics implements GatewayMetrics {
  readonly registry = new Registry();
  private readonly m: Built;
  private readonly models: SeriesCap;
  private readonly keys: SeriesCap;
  private readonly budgets: KeyBudgets;
  /** The name each key's per-key series carry (keys folded into "other" are not tracked). */
  private readonly keyNames = new Map<string, string>();
  /** Keys last seen with a max_parallel, by id: their in-flight gauge reads 0 while none of theirs runs. */
  private readonly parallelKeys = new Map<string, [account: string, keyId: string, keyName: string]>();
  private readonly series = {
    requests: new Map<string, CounterSeries>(),
    duration: new Map<string, HistogramSeries>(),
    ttfb: new Map<string, HistogramSeries>(),
    prompt: new Map<string, CounterSeries>(),
    completion: new Map<string, CounterSeries>(),
    spend: new Map<string, CounterSeries>(),
    keyDuration: new Map<string, HistogramSeries>(),
    keySpend: new Map<string, CounterSeries>(),
    balance: new Map<string, GaugeSeries>(),
    redis: new Map<string, HistogramSeries>(),
  };
  private readonly overhead: HistogramSeries;
  /** Forwarded requests by how they were admitted (both series exist from the start). */
  private readonly admissions: Record<"lease" | "reserve", CounterSeries>;
  private readonly queue: QueueSeries;

  constructor(
    private readonly options: MetricsOptions,
    probes: MetricsProbes,
  ) {
    this.models = new SeriesCap(options.maxModelSeries);
    this.keys = new SeriesCap(options.maxKeySeries);
    this.budgets = new KeyBudgets(probes.now);
    const budgets = this.budgets;
    let queue: QueueSeries | undefined;
    const collect: Partial<Record<MetricKey, (gauge: Gauge<string>) => void | Promise<void>>> = {
      upstreamInFlight: (gauge) => gauge.set(probes.queue?.()?.inUse ?? 0),
      queueRequests: (gauge) => queue?.collectWaiting(gauge, probes.queue?.() ?? null),
      redisUp: (gauge) => gauge.set(probes.redisUp() ? 1 : 0),
      settlementsPending: (gauge) => gauge.set(probes.settlementsPending()),
      inFlight: (gauge) => gauge.set(probes.inFlight()),
      keyInFlight: (gauge) => this.collectKeyInFlight(gauge, probes.runningKeys()),
      keyBudget: (gauge) => budgets.collectBudget(gauge),
      keyBudgetRemaining: (gauge) => budgets.collectRemaining(gauge),
      alertOldestUndelivered: async (gauge) => {
        // A scrape must not fail because Redis is away: the gauge keeps its last value then.
        const age = await probes.oldestUndeliveredAge?.().catch(() => null);
        if (age !== null && age !== undefined) gauge.set(age);
      },
    };
    this.m = buildMetrics(this.registry, collect);
    queue = new QueueSeries(this.m, options.maxAccountSeries ?? 1000);
    this.queue = queue;
    if (options.maxInFlight !== undefined) this.m.upstreamMaxInFlight.set(options.maxInFlight);
    this.overhead = histogramSeries(this.m.overhead, {}, METRICS.overhead.buckets);

    // Every code, reason and failure kind exists from the start, so rate() and absent() work before the first.
    for (const code of Object.keys(ERRORS)) this.m.refusals.labels(code).inc(0);
    for (const kind of UPSTREAM_FAILURES) this.m.upstreamFailures.labels(kind).inc(0);
    for (const reason of REJECT_REASONS) this.m.usageRejected.labels(reason).inc(0);
    for (const type of EVENT_TYPES) this.m.alertEvents.labels(type).inc(0);
    for (const result of ATTEMPT_RESULTS) this.m.webhookDeliveries.labels(result).inc(0);
    for (const event of IDENTITY_EVENT_NAMES)
      for (const outcome of Object.keys(IDENTITY_EVENTS[event].outcomes))
        this.m.identityEvents.labels(event, outcome).inc(0);
    this.m.alertOldestUndelivered.set(0);
    this.m.reservationsExpired.inc(0);
    this.admissions = {
      lease: counterSeries(this.m.admissions, { path: "lease" }),
      reserve: counterSeries(this.m.admissions, { path: "reserve" }),
    };
    this.m.settlementsFailed.inc(0);
    for (const script of SCRIPT_NAMES) this.m.scriptErrors.labels(script).inc(0);
    this.m.settlementsUnreplicated.inc(0);
    this.m.settlementsReplayed.inc(0);
    this.m.settlementsGivenUp.inc(0);
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client names these gauges with a counter's _total suffix (promtool refuses them); their
      // per-type siblings (nodejs_active_handles{type} etc.) carry the same information.
      for (const misnamed of [
        "nodejs_active_handles_total",
        "nodejs_active_requests_total",
        "nodejs_active_resources_total",
      ]) {
        this.registry.removeSingleMetric(misnamed);
      }
    }
  }

  request(record: GatewayRequest): void {
    const model = this.models.label(record.model ?? "none");
    const status = String(record.status);
    const s = this.series;
    cached(s.requests, `${model}\n${status}`, () => counterSeries(this.m.requests, { model, status })).inc();
    if (record.code !== null) this.m.refusals.labels(record.code).inc();
    this.queue.request(record);
    if (record.outcome === "refused") return;
    if (record.admission !== null) this.admissions[record.admission].inc();
    this.finished(record, model);
  }

  private finished(record: GatewayRequest, model: string): void {
    const s = this.series;
    const m = this.m;
    const latency = record.latencyMs / 1000;
    cached(s.duration, model, () => histogramSeries(m.duration, { model }, METRICS.duration.buckets)).observe(
      latency,
    );
    if (record.upstreamTtfbMs !== null) {
      cached(s.ttfb, model, () => histogramSeries(m.ttfb, { model }, METRICS.ttfb.buckets)).observe(
        record.upstreamTtfbMs / 1000,
      );
    }
    this.overhead.observe(record.gatewayMs / 1000);
    if (record.promptTokens > 0) {
      cached(s.prompt, model, () => counterSeries(m.tokens, { model, kind: "prompt" })).inc(
        record.promptTokens,
      );
    }
    if (record.completionTokens > 0) {
      cached(s.completion, model, () => counterSeries(m.tokens, { model, kind: "completion" })).inc(
        record.completionTokens,
      );
    }
    const account = record.accountId ?? "";
    const rubles = rublesAsFloat(record.cost);
    if (record.cost > 0) {
      cached(s.spend, `${model}\n${account}`, () => counterSeries(m.spend, { model, account })).inc(rubles);
    }
    if (record.estimated) m.estimated.labels(model).inc();
    if (record.usageRejected !== null) m.usageRejected.labels(record.usageRejected).inc();
    if (record.overage > 0) m.overage.labels(model).inc(rublesAsFloat(record.overage));
    const failure =
      FAILURE_OF[record.outcome as Outcome] ??
      (record.status >= 500 && record.upstreamTtfbMs !== null ? "5xx" : null);
    if (failure) m.upstreamFailures.labels(failure).inc();
    if (!this.options.perKey || record.keyId === null) return;
    const keyId = this.keys.label(record.keyId);
    const keyName = keyId === OTHER ? OTHER : (record.keyName ?? "");
    if (keyId !== OTHER) this.followName(account, keyId, keyName);
    const labels = { account, key_id: keyId, key_name: keyName };
    const key = `${account}\n${keyId}\n${keyName}`;
    cached(s.keyDuration, key, () =>
      histogramSeries(m.keyDuration, labels, METRICS.keyDuration.buckets),
    ).observe(latency);
    if (record.cost > 0) cached(s.keySpend, key, () => counterSeries(m.keySpend, labels)).inc(rubles);
  }

  /**
   * A renamed key's series move to its new name: those under the old name are removed (Prometheus sees them
   * end and new ones start, which rate() and increase() handle), so the series count stays one per key.
   */
  private followName(accountId: string, keyId: string, keyName: string): void {
    const previous = this.keyNames.get(keyId);
    if (previous === keyName) return;
    this.keyNames.set(keyId, keyName);
    if (previous === undefined) return;
    const old = { account: accountId, key_id: keyId, key_name: previous };
    this.m.keyDuration.remove(old);
    this.m.keySpend.remove(old);
    const key = `${accountId}\n${keyId}\n${previous}`;
    this.series.keyDuration.delete(key);
    this.series.keySpend.delete(key);
  }

  settled(
    accountId: string,
    keyId: string,
    keyName: string | null,
    balance: Micros,
    windows: readonly KeyWindowSample[],
  ): void {
    this.balance(accountId, balance);
    // Folded keys share a series; a budget gauge of "other" would mean nothing.
    if (keyName === null || !this.options.perKey || this.keys.label(keyId) === OTHER) return;
    this.budgets.set(accountId, keyId, keyName, windows);
  }

  /**
   * Fills the per-key in-flight gauge (collect-time) from the requests running now: a key is followed from
   * its first request with a max_parallel until one runs without (the limit was removed).
   */
  private collectKeyInFlight(gauge: Gauge<string>, running: Iterable<RunningKey>): void {
    const counts = new Map<string, number>();
    for (const key of running) {
      const { keyId } = key;
      if (keyId === null) continue;
      if (key.maxParallel === null) {
        this.parallelKeys.delete(keyId);
        continue;
      }
      if (!this.options.perKey || this.keys.label(keyId) === OTHER) continue;
      this.parallelKeys.set(keyId, [key.accountId ?? "", keyId, key.keyName ?? ""]);
      counts.set(keyId, (counts.get(keyId) ?? 0) + 1);
    }
    gauge.reset();
    for (const [keyId, labels] of this.parallelKeys) gauge.labels(...labels).set(counts.get(keyId) ?? 0);
  }

  balance(accountId: string, balance: Micros): void {
    cached(this.series.balance, accountId, () =>
      gaugeSeries(this.m.accountBalance, { account: accountId }),
    ).set(rublesAsFloat(balance));
  }

  settlementFailed(): void {
    this.m.settlementsFailed.inc();
  }

  scriptError(script: string): void {
    this.m.scriptErrors.labels(script).inc();
  }

  settlementsUnreplicated(count: number): void {
    this.m.settlementsUnreplicated.inc(count);
  }

  settlementsGivenUp(count: number): void {
    this.m.settlementsGivenUp.inc(count);
  }

  settlementReplayed(): void {
    this.m.settlementsReplayed.inc();
  }

  booksDrift(accountId: string, difference: Micros): void {
    this.m.booksDrift.set({ account: accountId }, rublesAsFloat(difference));
  }

  redisOperation(operation: string, seconds: number): void {
    cached(this.series.redis, operation, () =>
      histogramSeries(this.m.redisDuration, { operation }, METRICS.redisDuration.buckets),
    ).observe(seconds);
  }

  expiredReservations(count: number): void {
    this.m.reservationsExpired.inc(count);
  }

  alertEvent(type: string): void {
    this.m.alertEvents.labels(isEventType(type) ? type : OTHER).inc();
  }

  webhookDelivery(result: AttemptResult): void {
    this.m.webhookDeliveries.labels(result).inc();
  }

  identityEvent(event: IdentityEventName, outcome: string): void {
    // Only declared pairs: the label set stays the bounded one made at start.
    if (outcome in IDENTITY_EVENTS[event].outcomes) this.m.identityEvents.labels(event, outcome).inc();
  }
}
