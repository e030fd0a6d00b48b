// Every Prometheus metric the gateway exports, in one registry. Names follow the Prometheus conventions
// (base units, _total for counters, _seconds, _rubles). Label sets are bounded: models and per-key series
// go through a SeriesCap, so that clients sending arbitrary model names, or a million keys, cannot blow up
// a scrape, and a key's series carry only its current name, so that renaming a key again and again cannot
// either. The series the request path updates are made once and written directly (fast-series.ts), so
// the request path does not validate and hash label sets.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { REJECT_REASONS, type RejectReason } from "../billing/charge.js";
import { type Micros, rublesAsFloat } from "../billing/money.js";
import { ERRORS, type ErrorCode } from "../errors.js";
import {
  type CounterSeries,
  counterSeries,
  type GaugeSeries,
  gaugeSeries,
  type HistogramSeries,
  histogramSeries,
} from "./fast-series.js";

export const METRIC_PREFIX = "tunnel_gateway_";

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFB_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1];
const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5];
/** Coarser buckets for the per-key histogram: its series count is multiplied by the number of keys. */
const KEY_DURATION_BUCKETS = [0.1, 0.5, 1, 5, 30, 120];

export type UpstreamFailure = "refused" | "reset" | "timeout" | "5xx";
export const UPSTREAM_FAILURES: readonly UpstreamFailure[] = ["refused", "reset", "timeout", "5xx"];
export type TokenKind = "prompt" | "completion";

/** The label value series beyond a cap fold into. */
export const OTHER = "other";

/**
 * Admits up to `max` distinct values; later ones map to "other". Values once admitted stay admitted, so a
 * series never flips between its own name and "other".
 */
export class SeriesCap {
  private readonly admitted = new Set<string>();

  constructor(private readonly max: number) {}

  label(value: string): string {
    if (this.admitted.has(value)) return value;
    if (this.admitted.size >= this.max) return OTHER;
    this.admitted.add(value);
    return value;
  }
}

/** Values read at scrape time rather than updated on every request. */
export interface MetricsProbes {
  inFlight(): number;
  /** Settlements waiting to be retried because Redis was away. */
  settlementsPending(): number;
  redisUp(): boolean;
  /** Wall clock (ms), to tell whether a budget period has ended since a key's last request. */
  now(): number;
}

/** A key's budget as of its last settled request. */
interface KeyBudget {
  labels: [account: string, keyId: string, keyName: string];
  budget: Micros;
  spent: Micros;
  /** When the period of `spent` ends (ms): from then on the whole budget remains. */
  resetAt: number;
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

/** What a finished request contributes to the metrics. */
export interface RequestSample {
  model: string | null;
  status: number;
  accountId: string;
  keyId: string;
  keyName: string;
  promptTokens: number;
  completionTokens: number;
  cost: Micros;
  estimated: boolean;
  /** Why the upstream's usage report was not believed, if it was not. */
  usageRejected: RejectReason | null;
  /** What a credible report cost beyond the reservation (µ₽). */
  overage: Micros;
  latencySeconds: number;
  upstreamTtfbSeconds: number | null;
  overheadSeconds: number;
}

/**
 * The request path's series, one per label set, made once and kept (fast-series.ts: updated without
 * prom-client's per-call label hashing). The caps keep these maps as bounded as the series themselves.
 */
function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let child = cache.get(key);
  if (child === undefined) {
    child = make();
    cache.set(key, child);
  }
  return child;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly models: SeriesCap;
  private readonly keys: SeriesCap;
  /** The name each key's per-key series carry (keys folded into "other" are not tracked). */
  private readonly keyNames = new Map<string, string>();
  private readonly children = {
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

  private readonly requests: Counter<"model" | "status">;
  private readonly duration: Histogram<"model">;
  private readonly ttfb: Histogram<"model">;
  private readonly overhead: Histogram;
  private readonly overheadSeries: HistogramSeries;
  private readonly tokens: Counter<"model" | "kind">;
  private readonly spend: Counter<"model" | "account">;
  private readonly estimated: Counter<"model">;
  private readonly usageRejected: Counter<"reason">;
  private readonly overage: Counter<"model">;
  private readonly refusals: Counter<"code">;
  private readonly upstreamFailures: Counter<"kind">;
  private readonly redisDuration: Histogram<"operation">;
  private readonly reservationsExpired: Counter;
  private readonly settlementsFailed: Counter;
  private readonly budgets = new Map<string, KeyBudget>();
  private readonly keyDuration: Histogram<"account" | "key_id" | "key_name">;
  private readonly keySpend: Counter<"account" | "key_id" | "key_name">;
  private readonly accountBalance: Gauge<"account">;

  constructor(
    private readonly options: MetricsOptions,
    probes: MetricsProbes,
  ) {
    this.models = new SeriesCap(options.maxModelSeries);
    this.keys = new SeriesCap(options.maxKeySeries);
    const registers = [this.registry];
    const p = METRIC_PREFIX;

    this.requests = new Counter({
      name: `${p}requests_total`,
      help: "Requests forwarded or refused by the gateway, by model and HTTP status (499: the client went away first).",
      labelNames: ["model", "status"],
      registers,
    });
    this.duration = new Histogram({
      name: `${p}request_duration_seconds`,
      help: "End-to-end duration of forwarded requests, from arrival to the last byte, by model.",
      labelNames: ["model"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.ttfb = new Histogram({
      name: `${p}upstream_ttfb_seconds`,
      help: "Time from forwarding a request to the upstream's response headers, by model.",
      labelNames: ["model"],
      buckets: TTFB_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: `${p}overhead_seconds`,
      help: "Time the gateway adds before forwarding: authentication, reading the body, the reservation.",
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.overheadSeries = histogramSeries(this.overhead, {}, OVERHEAD_BUCKETS);
    this.tokens = new Counter({
      name: `${p}tokens_total`,
      help: "Tokens billed, by model and kind (prompt or completion).",
      labelNames: ["model", "kind"],
      registers,
    });
    this.spend = new Counter({
      name: `${p}spend_rubles_total`,
      help: "Rubles charged, by model and account.",
      labelNames: ["model", "account"],
      registers,
    });
    this.estimated = new Counter({
      name: `${p}usage_estimated_total`,
      help: "Requests billed on estimated usage because the upstream reported none (or the client hung up).",
      labelNames: ["model"],
      registers,
    });
    this.usageRejected = new Counter({
      name: `${p}usage_rejected_total`,
      help: "Usage reports not believed, by reason (not_a_count, completion_above_cap, prompt_above_limit): the request was billed by estimate.",
      labelNames: ["reason"],
      registers,
    });
    this.overage = new Counter({
      name: `${p}overage_rubles_total`,
      help: "What credible usage reports cost beyond their requests' reservations, by model: absorbed, unless billing.overage is charge.",
      labelNames: ["model"],
      registers,
    });
    this.refusals = new Counter({
      name: `${p}refusals_total`,
      help: "Requests refused by the gateway, by error code.",
      labelNames: ["code"],
      registers,
    });
    this.upstreamFailures = new Counter({
      name: `${p}upstream_failures_total`,
      help: "Upstream failures by kind: refused (connection), reset (mid-response), timeout, 5xx (status).",
      labelNames: ["kind"],
      registers,
    });
    this.redisDuration = new Histogram({
      name: `${p}redis_operation_duration_seconds`,
      help: "Duration of Redis operations on the request path, by operation.",
      labelNames: ["operation"],
      buckets: REDIS_BUCKETS,
      registers,
    });
    new Gauge({
      name: `${p}redis_up`,
      help: "1 while the gateway's Redis connection is ready, 0 otherwise.",
      registers,
      collect() {
        this.set(probes.redisUp() ? 1 : 0);
      },
    });
    new Gauge({
      name: `${p}settlements_pending`,
      help: "Settlements waiting to be retried because Redis could not be reached.",
      registers,
      collect() {
        this.set(probes.settlementsPending());
      },
    });
    this.settlementsFailed = new Counter({
      name: `${p}settlements_failed_total`,
      help: "Settlements Redis refused repeatedly and that were dropped; each is logged in full for reconciliation.",
      registers,
    });
    this.reservationsExpired = new Counter({
      name: `${p}reservations_expired_total`,
      help: "Reservations released because they expired unsettled (a replica died mid-request).",
      registers,
    });
    new Gauge({
      name: `${p}requests_in_flight`,
      help: "Forwarded requests in progress.",
      registers,
      collect() {
        this.set(probes.inFlight());
      },
    });
    this.keyDuration = new Histogram({
      name: `${p}key_request_duration_seconds`,
      help: 'End-to-end duration of forwarded requests per key (keys beyond metrics.maxKeySeries fold into key_id="other").',
      labelNames: ["account", "key_id", "key_name"],
      buckets: KEY_DURATION_BUCKETS,
      registers,
    });
    this.keySpend = new Counter({
      name: `${p}key_spend_rubles_total`,
      help: 'Rubles charged per key (keys beyond metrics.maxKeySeries fold into key_id="other").',
      labelNames: ["account", "key_id", "key_name"],
      registers,
    });
    const budgets = this.budgets;
    new Gauge({
      name: `${p}key_budget_rubles`,
      help: "A key's budget per period, for keys that have one.",
      labelNames: ["account", "key_id", "key_name"],
      registers,
      collect() {
        this.reset();
        for (const key of budgets.values()) this.labels(...key.labels).set(rublesAsFloat(key.budget));
      },
    });
    new Gauge({
      name: `${p}key_budget_remaining_rubles`,
      help: "What remains of a key's budget in the current period (the whole budget once a period has ended).",
      labelNames: ["account", "key_id", "key_name"],
      registers,
      collect() {
        this.reset();
        const now = probes.now();
        for (const key of budgets.values()) {
          const remaining = now >= key.resetAt ? key.budget : Math.max(0, key.budget - key.spent);
          this.labels(...key.labels).set(rublesAsFloat(remaining));
        }
      },
    });
    this.accountBalance = new Gauge({
      name: `${p}account_balance_rubles`,
      help: "An account's balance, as of its last settled request.",
      labelNames: ["account"],
      registers,
    });

    // Every code and failure kind exists from the start, so rate() and absent() work before the first one.
    for (const code of Object.keys(ERRORS)) this.refusals.labels(code).inc(0);
    for (const kind of UPSTREAM_FAILURES) this.upstreamFailures.labels(kind).inc(0);
    for (const reason of REJECT_REASONS) this.usageRejected.labels(reason).inc(0);
    this.reservationsExpired.inc(0);
    this.settlementsFailed.inc(0);
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

  /** A finished forwarded request. */
  finished(sample: RequestSample): void {
    const c = this.children;
    const model = this.models.label(sample.model ?? "none");
    const status = String(sample.status);
    cached(c.requests, `${model}\n${status}`, () => counterSeries(this.requests, { model, status })).inc();
    cached(c.duration, model, () => histogramSeries(this.duration, { model }, DURATION_BUCKETS)).observe(
      sample.latencySeconds,
    );
    if (sample.upstreamTtfbSeconds !== null) {
      cached(c.ttfb, model, () => histogramSeries(this.ttfb, { model }, TTFB_BUCKETS)).observe(
        sample.upstreamTtfbSeconds,
      );
    }
    this.overheadSeries.observe(sample.overheadSeconds);
    if (sample.promptTokens > 0) {
      cached(c.prompt, model, () => counterSeries(this.tokens, { model, kind: "prompt" })).inc(
        sample.promptTokens,
      );
    }
    if (sample.completionTokens > 0) {
      cached(c.completion, model, () => counterSeries(this.tokens, { model, kind: "completion" })).inc(
        sample.completionTokens,
      );
    }
    const rubles = rublesAsFloat(sample.cost);
    if (sample.cost > 0) {
      cached(c.spend, `${model}\n${sample.accountId}`, () =>
        counterSeries(this.spend, { model, account: sample.accountId }),
      ).inc(rubles);
    }
    if (sample.estimated) this.estimated.labels(model).inc();
    if (sample.usageRejected !== null) this.usageRejected.labels(sample.usageRejected).inc();
    if (sample.overage > 0) this.overage.labels(model).inc(rublesAsFloat(sample.overage));
    if (this.options.perKey) {
      const keyId = this.keys.label(sample.keyId);
      const keyName = keyId === OTHER ? OTHER : sample.keyName;
      if (keyId !== OTHER) this.followName(sample.accountId, keyId, keyName);
      const series = `${sample.accountId}\n${keyId}\n${keyName}`;
      cached(c.keyDuration, series, () =>
        histogramSeries(
          this.keyDuration,
          { account: sample.accountId, key_id: keyId, key_name: keyName },
          KEY_DURATION_BUCKETS,
        ),
      ).observe(sample.latencySeconds);
      if (sample.cost > 0) {
        cached(c.keySpend, series, () =>
          counterSeries(this.keySpend, { account: sample.accountId, key_id: keyId, key_name: keyName }),
        ).inc(rubles);
      }
    }
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
    this.keyDuration.remove(old);
    this.keySpend.remove(old);
    const series = `${accountId}\n${keyId}\n${previous}`;
    this.children.keyDuration.delete(series);
    this.children.keySpend.delete(series);
  }

  /** A request refused by the gateway with an error of the table. */
  refused(code: ErrorCode, status: number, model: string | null): void {
    this.refusals.labels(code).inc();
    this.requests.labels(this.models.label(model ?? "none"), String(status)).inc();
  }

  /** An error of the table the gateway answered for a request that finished() counts already (502, 504). */
  answeredWithError(code: ErrorCode): void {
    this.refusals.labels(code).inc();
  }

  upstreamFailure(kind: UpstreamFailure): void {
    this.upstreamFailures.labels(kind).inc();
  }

  /**
   * The balance and the key's budget as the settle script returned them, so that the gauges are exact and
   * current after every request; `resetAt` is when the key's period ends, after which the gauge shows the
   * whole budget again without waiting for the next request. A key without a budget has no budget series.
   */
  settled(
    accountId: string,
    keyId: string,
    keyName: string,
    balance: Micros,
    budget: Micros | null,
    spent: Micros,
    resetAt: number,
  ): void {
    this.balance(accountId, balance);
    if (!this.options.perKey) return;
    if (budget === null) {
      this.budgets.delete(keyId);
      return;
    }
    // Folded keys share a series; a budget gauge of "other" would mean nothing.
    if (this.keys.label(keyId) === OTHER) return;
    this.budgets.set(keyId, { labels: [accountId, keyId, keyName], budget, spent, resetAt });
  }

  /** An account's balance as just read or written (after a settlement or a top-up). */
  balance(accountId: string, balance: Micros): void {
    cached(this.children.balance, accountId, () =>
      gaugeSeries(this.accountBalance, { account: accountId }),
    ).set(rublesAsFloat(balance));
  }

  settlementFailed(): void {
    this.settlementsFailed.inc();
  }

  redisOperation(operation: string, seconds: number): void {
    cached(this.children.redis, operation, () =>
      histogramSeries(this.redisDuration, { operation }, REDIS_BUCKETS),
    ).observe(seconds);
  }

  expiredReservations(count: number): void {
    this.reservationsExpired.inc(count);
  }
}
