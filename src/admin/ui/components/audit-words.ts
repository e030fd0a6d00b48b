// The words the audit log's sentences (audit-text.ts) are made of, bound to the reader's language and time
// zone: amounts, budgets and their windows, lists, times, limits, and any other value readably.

import { isPeriod, type Period } from "../../../core/periods.js";
import { formatCurrency, formatInstant, formatMs, formatNumber } from "../i18n/format.js";
import { type Lang, type MessageKey, translate, type Values } from "../i18n/lookup.js";

/** A budget window as an entry records it ("100/day", services/budgets.ts windowDetails), or null. */
export function windowParts(value: unknown): { amount: string; period: Period } | null {
  if (typeof value !== "string") return null;
  const [amount, period, ...rest] = value.split("/");
  return amount !== undefined && isPeriod(period) && rest.length === 0 ? { amount, period } : null;
}

/** What the sentences are made of, bound to a language and a time zone. */
export class Words {
  constructor(
    readonly lang: Lang,
    private readonly timeZone: string | undefined,
  ) {}

  t(key: MessageKey, values?: Values): string {
    return translate(this.lang, key, values);
  }

  /** An amount as the entry records it (a decimal string of rubles) in the page's format. */
  rub(value: unknown): string {
    const amount = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
    return Number.isFinite(amount) && value !== "" ? formatCurrency(this.lang, amount) : this.plain(value);
  }

  quoted(value: unknown): string {
    return this.t("audit.v.quoted", { text: this.plain(value) });
  }

  budget(amount: unknown, period: unknown): string {
    if (amount === null) return this.t("keys.noBudget");
    const per = isPeriod(period) ? ` ${this.t(`keys.period.${period}`)}` : "";
    return `${this.rub(amount)}${per}`;
  }

  /** Budget windows as the entry records them ("100/day", …): "₽100.00 per day, ₽2,000.00 per month". */
  windows(value: unknown): string {
    if (!Array.isArray(value)) return this.plain(value);
    if (value.length === 0) return this.t("keys.noBudget");
    return value
      .map((item) => {
        const window = windowParts(item);
        return window === null ? this.plain(item) : this.budget(window.amount, window.period);
      })
      .join(", ");
  }

  models(value: unknown): string {
    return value === null ? this.t("keys.allModels") : this.list(value);
  }

  expiry(value: unknown): string {
    return value === null
      ? this.t("audit.v.noExpiry")
      : this.t("audit.v.until", { date: this.instant(value) });
  }

  limit(value: unknown): string {
    return value === null
      ? this.t("audit.v.noLimit")
      : typeof value === "number"
        ? this.num(value)
        : this.plain(value);
  }

  thresholds(value: unknown): string {
    if (value === null) return this.t("keyAlerts.default");
    if (Array.isArray(value) && value.length === 0) return this.t("common.none");
    return this.t("keyAlerts.current", { list: this.list(value) });
  }

  instant(value: unknown): string {
    return typeof value === "string" ? formatInstant(this.lang, value, this.timeZone) : this.plain(value);
  }

  num(value: number): string {
    return formatNumber(this.lang, value);
  }

  ms(value: unknown): string {
    return typeof value === "number" ? formatMs(this.lang, value) : this.plain(value);
  }

  list(value: unknown): string {
    return Array.isArray(value) ? value.map((item) => this.plain(item)).join(", ") : this.plain(value);
  }

  /** Any value, readably: text as it is, none for null, yes/no, lists joined. */
  plain(value: unknown): string {
    if (value === null || value === undefined) return this.t("common.none");
    if (typeof value === "string") return value;
    if (typeof value === "boolean") return this.t(value ? "audit.v.yes" : "audit.v.no");
    if (typeof value === "number") return this.num(value);
    if (Array.isArray(value)) return value.map((item) => this.plain(item)).join(", ");
    return JSON.stringify(value);
  }
}
