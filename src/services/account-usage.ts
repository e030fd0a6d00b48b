// An account's usage as its overview shows it: per day for a range (this month by default), each day split by
// key and by model; totals for today, this month and the range; the keys and models of the range by spend.
// Read from the daily usage counters the settle script writes (one hash per key and day, with the by-model
// counters inside), in one round trip, and summed as integers (µ₽): every figure is exact, and the dashboard
// shows these numbers, never sums of its own. The CSV exports (usage-csv.ts) are made from the same report.

import { rublesForJson } from "../core/money.js";
import { dayStamp } from "../core/periods.js";
import { validateAccountId } from "../core/validate.js";
import type { KeyRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import type { RequestLogEntry } from "../store/usage/request-log-schema.js";
import type { UsageCounters } from "../store/usage/usage-store.js";
import { matcher } from "./request-log-query.js";
import { MAX_USAGE_DAYS, sumCounters, UsageService } from "./usage.js";
import type { AccountUsage, ModelUsage, UsageFigures } from "./usage-schema.js";
import { requestsOf } from "./views.js";

/** What one model (or none, or the other models) used in one key's day: integers, cost in µ₽. */
export interface ModelCounters {
  requests: number;
  prompt_tokens: number;
  /** Of prompt_tokens, those the model server served from its cache. */
  cached_tokens: number;
  completion_tokens: number;
  cost: number;
}

/** One row of a model breakdown: `model` null for requests that named none, `other` for "other models". */
export interface ModelShare extends ModelCounters {
  model: string | null;
  other: boolean;
}

const COUNTERS = ["requests", "prompt_tokens", "cached_tokens", "completion_tokens", "cost"] as const;
const noCounters = (): ModelCounters => ({
  requests: 0,
  prompt_tokens: 0,
  cached_tokens: 0,
  completion_tokens: 0,
  cost: 0,
});
const NONE = "m::";
const OTHER = "mx:";

/**
 * A key's day split by model. The counters of each model are m:<model>:<counter> (the model may contain ':'),
 * those of the other models mx:<counter>; what the by-model counters do not cover — requests that named no
 * model, and the days before models were counted — goes to "no model", so that the shares always add up to
 * the day's totals.
 */
export function modelShares(counters: UsageCounters): Map<string, ModelCounters> {
  const shares = new Map<string, ModelCounters>();
  const add = (prefix: string, counter: string, value: number) => {
    let share = shares.get(prefix);
    if (!share) {
      share = noCounters();
      shares.set(prefix, share);
    }
    share[counter as keyof ModelCounters] += value;
  };
  const covered = noCounters();
  for (const [field, value] of Object.entries(counters)) {
    const isModel = field.startsWith("m:");
    if (!isModel && !field.startsWith(OTHER)) continue;
    const cut = field.lastIndexOf(":");
    const counter = field.slice(cut + 1);
    if (!(COUNTERS as readonly string[]).includes(counter)) continue;
    add(field.slice(0, cut + 1), counter, value);
    covered[counter as keyof ModelCounters] += value;
  }
  const totals: ModelCounters = {
    requests: requestsOf(counters),
    prompt_tokens: counters.prompt_tokens ?? 0,
    cached_tokens: counters.cached_tokens ?? 0,
    completion_tokens: counters.completion_tokens ?? 0,
    cost: counters.cost ?? 0,
  };
  for (const counter of COUNTERS) {
    const rest = totals[counter] - covered[counter];
    if (rest > 0) add(NONE, counter, rest);
  }
  return shares;
}

/** The model a share prefix names: m:<model>: → model ("" → null), mx: → other. */
function shareOf(prefix: string, counters: ModelCounters): ModelShare {
  if (prefix === OTHER) return { model: null, other: true, ...counters };
  const model = prefix.slice(2, -1);
  return { model: model === "" ? null : model, other: false, ...counters };
}

/** The raw material of a report, for the CSV exports: every key's counters on every day of the range. */
export interface UsageTable {
  days: string[];
  keys: KeyRecord[];
  /** counters[d][k] for days[d] and keys[k]. */
  counters: UsageCounters[][];
}

/** The stores AccountUsageService reads and writes. */
export type AccountUsageStores = Pick<
  Stores,
  "accounts" | "keys" | "usage" | "requestLog" | "calendar" | "now"
>;

export class AccountUsageService {
  constructor(private readonly stores: AccountUsageStores) {}

  /** The account's overview from `from` to `to` (YYYY-MM-DD; this month up to today when omitted). */
  async report(accountId: unknown, from?: unknown, to?: unknown): Promise<AccountUsage> {
    const id = validateAccountId(accountId);
    const now = this.stores.now();
    const zone = this.stores.calendar.zone;
    const today = dayStamp(now, zone);
    const range = this.range(from, to, today);
    const monthDays = new UsageService(this.stores).days(`${today.slice(0, 8)}01`, today);
    const all = [...new Set([...range, ...monthDays])].sort();
    const table = await this.table(id, all);
    const byDay = new Map(all.map((day, d) => [day, table.counters[d] ?? []]));
    const sumOver = (days: readonly string[]) =>
      figures(sumCounters(days.flatMap((day) => byDay.get(day) ?? [])));

    const keyTotals = table.keys.map((_key, k) => sumCounters(range.map((day) => byDay.get(day)?.[k] ?? {})));
    const rangeModels = mergeShares(keyTotals.map(modelShares));
    return {
      account_id: id,
      timezone: zone,
      from: range[0] as string,
      to: range[range.length - 1] as string,
      today,
      month: today.slice(0, 7),
      totals: { today: sumOver([today]), month: sumOver(monthDays), range: sumOver(range) },
      days: range.map((date) => {
        const counters = byDay.get(date) ?? [];
        return {
          date,
          ...figures(sumCounters(counters)),
          by_key: bySpend(
            table.keys
              .map((key, k) => ({ key_id: key.id, name: key.name, ...figures(counters[k] ?? {}) }))
              .filter((row) => row.requests > 0),
          ),
          by_model: modelRows(mergeShares(counters.map(modelShares))),
        };
      }),
      keys: bySpend(
        table.keys
          .map((key, k) => ({ key_id: key.id, name: key.name, ...figures(keyTotals[k] ?? {}) }))
          .filter((row) => row.requests > 0),
      ),
      models: modelRows(rangeModels),
    };
  }

  /** Every key's counters on every day from `from` to `to`, for the CSV export of daily usage. */
  async usageTable(accountId: unknown, from?: unknown, to?: unknown): Promise<UsageTable> {
    const id = validateAccountId(accountId);
    const today = dayStamp(this.stores.now(), this.stores.calendar.zone);
    return this.table(id, this.range(from, to, today));
  }

  /**
   * The kept requests of every key of the account from `from` to `to` (this month by default), newest first,
   * each with its key, for the CSV export.
   */
  async requests(
    accountId: unknown,
    from?: unknown,
    to?: unknown,
  ): Promise<{ key: KeyRecord; entry: RequestLogEntry }[]> {
    const id = validateAccountId(accountId);
    const zone = this.stores.calendar.zone;
    const range = this.range(from, to, dayStamp(this.stores.now(), zone));
    await this.stores.accounts.require(id);
    const keys = await this.stores.keys.list(id);
    const lists = await Promise.all(keys.map((key) => this.stores.requestLog.all(id, key.id)));
    const inRange = matcher({ from: range[0] as string, to: range[range.length - 1] as string }, zone);
    const rows = lists.flatMap((entries, k) =>
      entries.filter(inRange).map((entry) => ({ key: keys[k] as KeyRecord, entry })),
    );
    return rows.sort((a, b) => b.entry.at.localeCompare(a.entry.at));
  }

  /** The range asked for: this month up to today by default; at most MAX_USAGE_DAYS days. */
  range(from: unknown, to: unknown, today: string): string[] {
    const days = new UsageService(this.stores);
    if (from === undefined && to === undefined) return days.days(`${today.slice(0, 8)}01`, today);
    if (from === undefined) {
      const last = days.days(to, to)[0] as string;
      return days.days(`${last.slice(0, 8)}01`, last);
    }
    return days.days(from, to ?? today, MAX_USAGE_DAYS);
  }

  private async table(accountId: string, days: readonly string[]): Promise<UsageTable> {
    await this.stores.accounts.require(accountId);
    const keys = await this.stores.keys.list(accountId);
    const counters = await this.stores.usage.counters(
      accountId,
      keys.map((key) => key.id),
      days,
    );
    return { days: [...days], keys, counters };
  }
}

function figures(counters: UsageCounters): UsageFigures {
  return {
    requests: requestsOf(counters),
    prompt_tokens: counters.prompt_tokens ?? 0,
    cached_tokens: counters.cached_tokens ?? 0,
    completion_tokens: counters.completion_tokens ?? 0,
    cost: rublesForJson(counters.cost ?? 0),
    errors: counters.errors ?? 0,
  };
}

/** Model shares of several keys or days added up, prefix by prefix. */
export function mergeShares(all: readonly Map<string, ModelCounters>[]): Map<string, ModelCounters> {
  const merged = new Map<string, ModelCounters>();
  for (const shares of all) {
    for (const [prefix, counters] of shares) {
      const into = merged.get(prefix) ?? noCounters();
      for (const counter of COUNTERS) into[counter] += counters[counter];
      merged.set(prefix, into);
    }
  }
  return merged;
}

function modelRows(shares: Map<string, ModelCounters>): ModelUsage[] {
  const rows = [...shares].map(([prefix, counters]) => shareOf(prefix, counters));
  rows.sort(
    (a, b) =>
      b.cost - a.cost ||
      b.requests - a.requests ||
      Number(a.other) - Number(b.other) ||
      (a.model ?? "").localeCompare(b.model ?? ""),
  );
  return rows.map((row) => ({ ...row, cost: rublesForJson(row.cost) }));
}

function bySpend<T extends { cost: number; requests: number; key_id: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => b.cost - a.cost || b.requests - a.requests || a.key_id.localeCompare(b.key_id));
}
