// The metrics of finished and refused requests, settlements and Redis, built from their declarations
// (metric-definitions.ts) into one registry. Label sets are bounded: models and keys go through a SeriesCap,
// and a key's series carry only its current name, so that renaming a key again and again cannot blow up a
// scrape either. The series the request path updates are made once and written directly (fast-series.ts),
// so the request path does not validate and hash label sets. With metrics off, NO_METRICS takes their place:
// every call a no-op, as pino swaps a disabled level for one.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { AttemptResult } from "../alerts/delivery-plan.js";
import { EVENT_TYPES, isEventType } from "../alerts/event-types.js";
import { REJECT_REASONS } from "../billing/charge.js";
import { type Micros, rublesAsFloat } from "../billing/money.js";
import { ERRORS } from "../errors.js";
import {
  type CounterSeries,
  counterSeries,
  type GaugeSeries,
  gaugeSeries,
  type HistogramSeries,
  histogramSeries,
} from "./fast-series.js";
import { KeyBudgets } from "./key-budgets.js";
import { METRIC_PREFIX, METRICS, type MetricKey } from "./metric-definitions.js";
import type { Outcome, RequestRecord } from "./request-record.js";
import { OTHER, SeriesCap } from "./series-cap.js";

export type UpstreamFailure = "refused" | "reset" | "timeout" | "5xx";
export const UPSTREAM_FAILURES: readonly UpstreamFailure[] = ["refused", "reset", "timeout", "5xx"];

const FAILURE_OF: Partial<Record<Outcome, UpstreamFailure>> = {
  upstream_unavailable: "refused",
  upstream_timeout: "timeout",
  upstream_reset: "reset",
};

/** What the gateway reports to its metrics. */
export interface GatewayMetrics {
  /** The registry to serve, or null with metrics off. */
  readonly registry: Registry | null;
  /** A request the gateway finished or refused. */
  request(record: RequestRecord): void;
  /**
   * The balance and the key's budget as the settle script returned them; `keyName` null for the release of
   * a request that was never forwarded, which touches no per-key series.
   */
  settled(
    accountId: string,
    keyId: string,
    keyName: string | null,
    balance: Micros,
    budget: Micros | null,
    spent: Micros,
    resetAt: number,
  ): void;
  /** An account's balance as just read or written (after a settlement or a top-up). */
  balance(accountId: string, balance: Micros): void;
  settlementFailed(): void;
  redisOperation(operation: string, seconds: number): void;
  expiredReservations(count: number): void;
  /** An alert event handed to a delivery worker for the first time. */
  alertEvent(type: string): void;
  webhookDelivery(result: AttemptResult): void;
}

const ATTEMPT_RESULTS: readonly AttemptResult[] = ["delivered", "retried", "failed"];

/** Values read at scrape time rather than updated on every request. */
export interface MetricsProbes {
  inFlight(): number;
  /** The keys of the requests in flight, one entry per request. */
  runningKeys(): Iterable<RunningKey>;
  /** Settlements waiting to be retried because Redis was away. */
  settlementsPending(): number;
  redisUp(): boolean;
  /** Wall clock (ms), to tell whether a budget period has ended since a key's last request. */
  now(): number;
  /** Age (seconds) of the oldest alert event not yet delivered; read from Redis at scrape time. */
  oldestUndeliveredAge?(): Promise<number>;
}

/** A running request's key, as the request tracker knows it. */
export interface RunningKey {
  accountId: string;
  keyId: string;
  keyName: string;
  maxParallel: number | null;
}

export interface MetricsOptions {
  /** Per-key series on or off. */
  perKey: boolean;
  /** Most keys with series of their own. */
  maxKeySeries: number;
  /** Most distinct model names with series of their own. */
  maxModelSeries: number;
  /** Also export Node's process and event-loop metrics. */
  defaultMetrics?: boolean;
}

export const NO_METRICS: GatewayMetrics = {
  registry: null,
  request() {},
  settled() {},
  balance() {},
  settlementFailed() {},
  redisOperation() {},
  expiredReservations() {},
  alertEvent() {},
  webhookDelivery() {},
};

type Built = { [K in MetricKey]: Counter<string> & Gauge<string> & Histogram<string> };

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

  constructor(
    private readonly options: MetricsOptions,
    probes: MetricsProbes,
  ) {
    this.models = new SeriesCap(options.maxModelSeries);
    this.keys = new SeriesCap(options.maxKeySeries);
    this.budgets = new KeyBudgets(probes.now);
    const budgets = this.budgets;
    const collect: Partial<Record<MetricKey, (gauge: Gauge<string>) => void | Promise<void>>> = {
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
    this.overhead = histogramSeries(this.m.overhead, {}, METRICS.overhead.buckets);

    // Every code, reason and failure kind exists from the start, so rate() and absent() work before the first.
    for (const code of Object.keys(ERRORS)) this.m.refusals.labels(code).inc(0);
    for (const kind of UPSTREAM_FAILURES) this.m.upstreamFailures.labels(kind).inc(0);
    for (const reason of REJECT_REASONS) this.m.usageRejected.labels(reason).inc(0);
    for (const type of EVENT_TYPES) this.m.alertEvents.labels(type).inc(0);
    for (const result of ATTEMPT_RESULTS) this.m.webhookDeliveries.labels(result).inc(0);
    this.m.alertOldestUndelivered.set(0);
    this.m.reservationsExpired.inc(0);
    this.m.settlementsFailed.inc(0);
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

  request(record: RequestRecord): void {
    const model = this.models.label(record.model ?? "none");
    const status = String(record.status);
    const s = this.series;
    cached(s.requests, `${model}\n${status}`, () => counterSeries(this.m.requests, { model, status })).inc();
    if (record.code !== null) this.m.refusals.labels(record.code).inc();
    if (record.outcome === "refused") return;
    this.finished(record, model);
  }

  private finished(record: RequestRecord, model: string): void {
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
    budget: Micros | null,
    spent: Micros,
    resetAt: number,
  ): void {
    this.balance(accountId, balance);
    // Folded keys share a series; a budget gauge of "other" would mean nothing.
    if (keyName === null || !this.options.perKey || this.keys.label(keyId) === OTHER) return;
    this.budgets.set(accountId, keyId, keyName, budget, spent, resetAt);
  }

  /**
   * Fills the per-key in-flight gauge (collect-time) from the requests running now: a key is followed from
   * its first request with a max_parallel until one runs without (the limit was removed).
   */
  private collectKeyInFlight(gauge: Gauge<string>, running: Iterable<RunningKey>): void {
    const counts = new Map<string, number>();
    for (const key of running) {
      if (key.maxParallel === null) {
        this.parallelKeys.delete(key.keyId);
        continue;
      }
      if (!this.options.perKey || this.keys.label(key.keyId) === OTHER) continue;
      this.parallelKeys.set(key.keyId, [key.accountId, key.keyId, key.keyName]);
      counts.set(key.keyId, (counts.get(key.keyId) ?? 0) + 1);
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
}

/** The declared metrics as prom-client objects in `registry`; gauges in `collect` are set at scrape time. */
function buildMetrics(
  registry: Registry,
  collect: Partial<Record<MetricKey, (gauge: Gauge<string>) => void | Promise<void>>>,
): Built {
  const built: Partial<Record<MetricKey, unknown>> = {};
  for (const [key, definition] of Object.entries(METRICS) as [MetricKey, (typeof METRICS)[MetricKey]][]) {
    const config = {
      name: METRIC_PREFIX + definition.name,
      help: definition.help,
      labelNames: "labels" in definition ? [...definition.labels] : [],
      registers: [registry],
    };
    const fill = collect[key];
    if (definition.type === "counter") built[key] = new Counter(config);
    else if (definition.type === "histogram")
      built[key] = new Histogram({ ...config, buckets: [...definition.buckets] });
    else
      built[key] = new Gauge({
        ...config,
        ...(fill && {
          collect(this: Gauge<string>) {
            return fill(this);
          },
        }),
      });
  }
  return built as Built;
}
