// What every view needs: the language with its formatters, and who is signed in.

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "./api.js";
import {
  formatDay,
  formatInstant,
  formatMs,
  formatNumber,
  formatRubles,
  formatRublesShort,
} from "./format.js";
import { type Lang, type MessageKey, translate, type Values } from "./i18n.js";

export interface Ui {
  lang: Lang;
  t(key: MessageKey, values?: Values): string;
  rub(amount: number): string;
  rubShort(amount: number): string;
  num(value: number): string;
  ms(value: number | null): string;
  instant(iso: string): string;
  day(day: string): string;
}

export function makeUi(lang: Lang): Ui {
  return {
    lang,
    t: (key, values) => translate(lang, key, values),
    rub: (amount) => formatRubles(lang, amount),
    rubShort: (amount) => formatRublesShort(lang, amount),
    num: (value) => formatNumber(lang, value),
    ms: (value) => formatMs(lang, value),
    instant: (iso) => formatInstant(lang, iso),
    day: (day) => formatDay(lang, day),
  };
}

export const UiContext = createContext<Ui>(makeUi("en"));
export const useUi = (): Ui => useContext(UiContext);

export interface Session {
  me: Me;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in view");
  return session;
}
