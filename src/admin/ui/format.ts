// Numbers, rubles, instants and days as people read them in the chosen language. Pure functions over Intl;
// formatters are made once per language and kept.

import { type Lang, LOCALES } from "./i18n.js";

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function numberFormat(lang: Lang, name: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const id = `${lang}:n:${name}`;
  let format = cache.get(id) as Intl.NumberFormat | undefined;
  if (!format) {
    format = new Intl.NumberFormat(LOCALES[lang], options);
    cache.set(id, format);
  }
  return format;
}

function dateFormat(lang: Lang, name: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const id = `${lang}:d:${name}`;
  let format = cache.get(id) as Intl.DateTimeFormat | undefined;
  if (!format) {
    format = new Intl.DateTimeFormat(LOCALES[lang], options);
    cache.set(id, format);
  }
  return format;
}

/**
 * Rubles as the gateway counts them: kopecks always shown, and up to the micro-ruble when an amount has
 * more decimals (the cost of a few tokens is a fraction of a kopeck). `1 234,56 ₽` in Russian,
 * `₽1,234.56` in English.
 */
export function formatRubles(lang: Lang, amount: number): string {
  return numberFormat(lang, "rub", {
    style: "currency",
    currency: "RUB",
    currencyDisplay: "narrowSymbol",
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(amount);
}

/** Rubles for a chart axis: whole rubles when the scale is wide, kopecks otherwise. */
export function formatRublesShort(lang: Lang, amount: number): string {
  const digits = Math.abs(amount) >= 100 || amount === 0 ? 0 : Math.abs(amount) >= 1 ? 2 : 4;
  return numberFormat(lang, `rub${digits}`, {
    style: "currency",
    currency: "RUB",
    currencyDisplay: "narrowSymbol",
    minimumFractionDigits: 0,
    maximumFractionDigits: digits,
  }).format(amount);
}

export function formatNumber(lang: Lang, value: number): string {
  return numberFormat(lang, "int", { maximumFractionDigits: 2 }).format(value);
}

/** Milliseconds with their unit: `120 ms`, `120 мс`; an em dash for no value. */
export function formatMs(lang: Lang, value: number | null): string {
  if (value === null) return "—";
  return numberFormat(lang, "ms", {
    style: "unit",
    unit: "millisecond",
    unitDisplay: "short",
    maximumFractionDigits: 0,
  }).format(value);
}

/** An instant from the API (ISO 8601) in UTC, the time zone the gateway reports in: `21 Nov 2026, 10:00 UTC`. */
export function formatInstant(lang: Lang, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = dateFormat(lang, "instant", {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: "UTC",
  }).format(date);
  return `${text} UTC`;
}

/** A calendar day from the API (YYYY-MM-DD): `21 Nov 2026`. */
export function formatDay(lang: Lang, day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return dateFormat(lang, "day", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" }).format(
    date,
  );
}

/** A day on a chart axis, from seconds since the epoch at UTC midnight: `21 Nov`. */
export function formatAxisDay(lang: Lang, seconds: number): string {
  return dateFormat(lang, "axis", { month: "short", day: "numeric", timeZone: "UTC" }).format(
    new Date(seconds * 1000),
  );
}

/** Seconds since the epoch of a YYYY-MM-DD day at UTC midnight (the chart's x values). */
export function daySeconds(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

/** Intl separates groups and units with no-break spaces (U+00A0, U+202F); plain spaces for comparing text. */
export function plainSpaces(text: string): string {
  return text.replace(/[\u00a0\u202f]/g, " ");
}
