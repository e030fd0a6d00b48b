// Both languages say everything, with the same placeholders; the language is picked as promised.

import { describe, expect, it } from "vitest";
import {
  LANGS,
  MESSAGES,
  type MessageKey,
  pickLang,
  translate,
} from "../../../../src/admin/ui/i18n/lookup.js";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("messages", () => {
  it("exist in every language, non-empty, with the same placeholders", () => {
    const keys = Object.keys(MESSAGES.en).sort();
    expect(keys.length).toBeGreaterThan(100);
    for (const lang of LANGS) {
      expect(Object.keys(MESSAGES[lang]).sort(), lang).toEqual(keys);
      for (const key of keys as MessageKey[]) {
        const text = MESSAGES[lang][key];
        expect(text.trim(), `${lang} ${key}`).not.toBe("");
        expect(placeholders(text), `${lang} ${key}`).toEqual(placeholders(MESSAGES.en[key]));
      }
    }
  });

  it("are really translated, not copied", () => {
    const same = (Object.keys(MESSAGES.en) as MessageKey[]).filter(
      (key) => MESSAGES.ru[key] === MESSAGES.en[key],
    );
    // Only names and technical labels may read the same in both.
    expect(same.sort()).toEqual([
      "app.name",
      "keys.col.id",
      "req.status.2xx",
      "req.status.4xx",
      "req.status.5xx",
      "usage.col.p50",
      "usage.col.p95",
    ]);
  });

  it("have a label for every audit action the API reports", async () => {
    const { AuditEntry } = await import("../../../../src/store/audit/audit-schema.js");
    const actions = (AuditEntry.shape.action as unknown as { options: string[] }).options;
    for (const action of actions) {
      for (const lang of LANGS) expect(MESSAGES[lang]).toHaveProperty([`audit.action.${action}`]);
    }
  });

  it("fill in placeholders", () => {
    expect(translate("ru", "revoke.title", { name: "prod" })).toBe("Отозвать ключ «prod»?");
    expect(translate("en", "account.title", { id: "acme" })).toBe("Account acme");
    expect(translate("en", "account.title")).toBe("Account {id}");
  });
});

describe("the language", () => {
  it("is the stored choice when there is one", () => {
    expect(pickLang("en", ["ru-RU"])).toBe("en");
    expect(pickLang("ru", ["en-US"])).toBe("ru");
  });

  it("is Russian when the browser prefers it to English", () => {
    expect(pickLang(null, ["ru-RU", "en-US"])).toBe("ru");
    expect(pickLang(null, ["ru"])).toBe("ru");
    expect(pickLang(null, ["uk-UA", "ru-RU", "en"])).toBe("ru");
    expect(pickLang("de", ["RU"])).toBe("ru");
  });

  it("is English otherwise", () => {
    expect(pickLang(null, ["en-GB", "ru-RU"])).toBe("en");
    expect(pickLang(null, ["de-DE", "fr"])).toBe("en");
    expect(pickLang(undefined, [])).toBe("en");
  });
});
