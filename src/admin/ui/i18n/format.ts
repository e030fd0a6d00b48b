// Numbers, rubles, instants and days as people read them in the chosen language. Pure functions over Intl;
// formatters are made once per language (and time zone) and kept. Instants are shown in the reader's time
// zone; calendar days and budget resets in the billing time zone, as billing counts them.

import { type Lang, LOCALES } from "./lookup.js";

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
 * An amount of rubles (as the API writes it) as a sum of money in the reader's language: kopecks always
 * shown, and up to the micro-ruble when an amount has more decimals (the cost of a few tokens is a fraction
 * of a kopeck). `1 234,56 ₽` in Russian, `₽1,234.56` in English. Not core's formatRubles, which writes µ₽ as
 * an exact decimal for machines.
 */
export function formatCurrency(lang: Lang, amount: number): string {
  return numberFormat(lang, "rub", {
    style: "currency",
    currency: "RUB",
    currencyDisplay: "narrowSymbol",
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(amount);
}

/** Rubles for a chart axis: whole rubles when the scale is wide, kopecks otherwise. */
export function formatCurrencyShort(lang: Lang, amount: number): string {
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

const INSTANT: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
};

/**
 * An instant from the API (ISO 8601) in the reader's time zone — the browser's, unless `timeZone` names
 * another (the tests do): `Nov 21, 2026, 13:05`. The UTC time goes with it on hover (formatInstantUtc).
 */
export function formatInstant(lang: Lang, iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const name = `instant:${timeZone ?? ""}`;
  return dateFormat(lang, name, timeZone === undefined ? INSTANT : { ...INSTANT, timeZone }).format(date);
}

/** An instant in UTC, saying so: `Nov 21, 2026, 10:05 UTC`. */
export function formatInstantUtc(lang: Lang, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${dateFormat(lang, "instant:UTC", { ...INSTANT, timeZone: "UTC" }).format(date)} UTC`;
}

/**
 * The UTC offset, in minutes, of the billing time zone at a budget's reset. The admin API does not name the
 * billing time zone, but a reset is a midnight there, so the offset is how far that instant is from a UTC
 * midnight. Offsets past +12:00 read as the matching negative one (+13:00 as -11:00): the same instant
 * either way, on the other side of the date line.
 */
export function billingOffsetMinutes(iso: string): number {
  const date = new Date(iso);
  const sinceMidnight = date.getUTCHours() * 60 + date.getUTCMinutes();
  const offset = (1440 - sinceMidnight) % 1440;
  return offset > 720 ? offset - 1440 : offset;
}

/** `UTC+03:00`, `UTC-05:30`, `UTC` for a UTC offset in minutes. */
export function formatOffset(minutes: number): string {
  if (minutes === 0) return "UTC";
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `UTC${minutes < 0 ? "-" : "+"}${hh}:${mm}`;
}

/**
 * A budget's reset in the billing time zone, with its offset: `Dec 1, 2026, 00:00 UTC+03:00` — the period
 * boundary as billing counts it, wherever the reader is. With the zone known (GET /admin/v1/me names it), the
 * time is the zone's own and the zone is named: `Dec 1, 2026, 00:00 (Europe/Moscow)`; without it, the offset
 * is worked out from the reset being a midnight.
 */
export function formatBillingInstant(lang: Lang, iso: string, zone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (zone !== undefined) {
    try {
      return `${dateFormat(lang, `instant:${zone}`, { ...INSTANT, timeZone: zone }).format(date)} (${zone})`;
    } catch {
      // A zone this browser does not know: the offset below is still right.
    }
  }
  const offset = billingOffsetMinutes(iso);
  const shifted = new Date(date.getTime() + offset * 60_000);
  const text = dateFormat(lang, "instant:UTC", { ...INSTANT, timeZone: "UTC" }).format(shifted);
  return `${text} ${formatOffset(offset)}`;
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
