// The dashboard's languages and the lookup of a message in one of them: the dictionaries themselves are one
// file per language (en.ts, ru.ts). Pure data and functions (no DOM at import time), so the unit tests can
// check that every language has every message with the same placeholders.

import { type Dictionary, en, type MessageKey } from "./en.js";
import { ru } from "./ru.js";

export type { MessageKey } from "./en.js";

export const LANGS = ["ru", "en"] as const;
export type Lang = (typeof LANGS)[number];

/** Every language's dictionary. */
export const MESSAGES: Record<Lang, Dictionary> = { en, ru };

export type Values = Record<string, string | number>;

/** The message in `lang` with its {placeholders} filled in; an unknown placeholder is left as it is. */
export function translate(lang: Lang, key: MessageKey, values?: Values): string {
  const text = MESSAGES[lang][key];
  if (!values) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    values[name] === undefined ? whole : String(values[name]),
  );
}

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGS as readonly string[]).includes(value);
}

/**
 * The language to show: the one the user chose before, else the first of the browser's preferred
 * languages that the dashboard speaks (so Russian whenever the browser puts it before English), else English.
 */
export function pickLang(stored: string | null | undefined, preferred: readonly string[]): Lang {
  if (isLang(stored)) return stored;
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split("-")[0];
    if (isLang(primary)) return primary;
  }
  return "en";
}

/** The BCP 47 locale that numbers and dates are formatted in. */
export const LOCALES: Record<Lang, string> = { ru: "ru-RU", en: "en-US" };
