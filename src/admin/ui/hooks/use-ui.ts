// What every view needs: the language with its translations and formatters bound to it (makeUi), given to the
// views by the app's frame.

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import {
  formatBillingInstant,
  formatCurrency,
  formatCurrencyShort,
  formatDay,
  formatInstant,
  formatInstantUtc,
  formatMs,
  formatNumber,
} from "../i18n/format.js";
import { type Lang, type MessageKey, translate, type Values } from "../i18n/lookup.js";

export interface Ui {
  lang: Lang;
  t(key: MessageKey, values?: Values): string;
  rub(amount: number): string;
  rubShort(amount: number): string;
  num(value: number): string;
  ms(value: number | null): string;
  /** An instant in the reader's time zone. */
  instant(iso: string): string;
  /** The same instant in UTC, saying so: what the dashboard shows on hover. */
  instantUtc(iso: string): string;
  /** A budget's reset in the billing time zone, with its UTC offset. */
  billingInstant(iso: string): string;
  day(day: string): string;
}

/**
 * The formatters bound to a language; instants in `timeZone`, by default the browser's own; budget resets in
 * `billingZone`, the gateway's billing time zone once it has named it.
 */
export function makeUi(lang: Lang, timeZone?: string, billingZone?: string): Ui {
  return {
    lang,
    t: (key, values) => translate(lang, key, values),
    rub: (amount) => formatCurrency(lang, amount),
    rubShort: (amount) => formatCurrencyShort(lang, amount),
    num: (value) => formatNumber(lang, value),
    ms: (value) => formatMs(lang, value),
    instant: (iso) => formatInstant(lang, iso, timeZone),
    instantUtc: (iso) => formatInstantUtc(lang, iso),
    billingInstant: (iso) => formatBillingInstant(lang, iso, billingZone),
    day: (day) => formatDay(lang, day),
  };
}

export const UiContext = createContext<Ui>(makeUi("en"));
export const useUi = (): Ui => useContext(UiContext);
