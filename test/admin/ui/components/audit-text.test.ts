// The audit log as sentences: every action and every detail field the services record, in both languages,
// the old value read from older entries where they tell it, and anything unknown still readable.

import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../src/admin/ui/api/types.js";
import { auditSentences, rawDetails } from "../../../../src/admin/ui/components/audit-text.js";
import { plainSpaces } from "../../../../src/admin/ui/i18n/format.js";
import type { Lang } from "../../../../src/admin/ui/i18n/lookup.js";

const ZONE = "Europe/Moscow";
let minute = 0;

/** An entry as the services write it; later calls are later entries. */
function entry(action: string, details: Record<string, unknown>, keyId?: string): AuditEntry {
  minute += 1;
  return {
    at: new Date(Date.UTC(2026, 10, 21, 10, minute)).toISOString(),
    actor: "cli",
    action: action as AuditEntry["action"],
    account_id: "acme",
    ...(keyId !== undefined && { key_id: keyId }),
    details,
  };
}

/** The sentences of entries given oldest first (the API lists them newest first), spaces made plain. */
function read(lang: Lang, ...oldestFirst: AuditEntry[]): string[] {
  return auditSentences(lang, [...oldestFirst].reverse(), ZONE)
    .map(plainSpaces)
    .reverse();
}

const created = (fields: Record<string, unknown> = {}) =>
  entry(
    "key.create",
    {
      name: "ci-bot",
      budget: "50",
      period: "day",
      expires_at: "2026-12-21T10:00:00.000Z",
      allowed_models: ["demo-small"],
      log_bodies: true,
      rpm: null,
      tpm: null,
      max_parallel: null,
      ...fields,
    },
    "key_1",
  );

describe("a budget change", () => {
  it("says what the budget was and what it became, in English and in Russian", () => {
    const entries = [created(), entry("key.update", { budget: "100", period: "month" }, "key_1")];
    expect(read("en", ...entries)[1]).toBe("Budget changed from ₽50.00 per day to ₽100.00 per month.");
    expect(read("ru", ...entries)[1]).toBe("Бюджет изменён: было 50,00 ₽ в день, стало 100,00 ₽ в месяц.");
  });

  it("keeps the period when only the amount changes, and the amount when only the period does", () => {
    const entries = [
      created(),
      entry("key.update", { budget: "60.5" }, "key_1"),
      entry("key.update", { period: "week" }, "key_1"),
    ];
    expect(read("en", ...entries).slice(1)).toEqual([
      "Budget changed from ₽50.00 per day to ₽60.50 per day.",
      "Budget changed from ₽60.50 per day to ₽60.50 per week.",
    ]);
  });

  it("knows a budget added to a key that had none, and one removed", () => {
    const entries = [
      created({ budget: null, period: "month" }),
      entry("key.update", { budget: "10" }, "key_1"),
      entry("key.update", { budget: null }, "key_1"),
    ];
    expect(read("en", ...entries).slice(1)).toEqual([
      "Budget changed from no budget to ₽10.00 per month.",
      "Budget changed from ₽10.00 per month to no budget.",
    ]);
  });

  it("says only the new budget when the entries shown do not tell the old one", () => {
    expect(read("en", entry("key.update", { budget: "100", period: "month" }, "key_9"))).toEqual([
      "Budget set to ₽100.00 per month.",
    ]);
    expect(read("ru", entry("key.update", { budget: "7" }, "key_9"))).toEqual(["Бюджет установлен: 7,00 ₽."]);
    expect(read("en", entry("key.update", { period: "week" }, "key_9"))).toEqual([
      "Budget period set to week.",
    ]);
    expect(read("ru", entry("key.update", { period: "day" }, "key_9"))).toEqual([
      "Период бюджета установлен: день.",
    ]);
  });

  it("lists a key's windows when they are set together, and knows the first of them afterwards", () => {
    const entries = [
      created({ budgets: ["50/day", "2000/month"] }),
      entry("key.update", { budgets: ["60.5/day", "1000/month"] }, "key_1"),
      entry("key.update", { budget: "70" }, "key_1"),
      entry("key.update", { budgets: [] }, "key_1"),
    ];
    const [made, ...changes] = read("en", ...entries);
    expect(made).toContain("budgets ₽50.00 per day, ₽2,000.00 per month,");
    expect(made).not.toMatch(/budgets:/);
    expect(changes).toEqual([
      "Budgets set to ₽60.50 per day, ₽1,000.00 per month.",
      "Budget changed from ₽60.50 per day to ₽70.00 per day.",
      "Every budget removed.",
    ]);
    expect(read("ru", entries[1] as AuditEntry)).toEqual([
      "Бюджеты установлены: 60,50 ₽ в день, 1 000,00 ₽ в месяц.",
    ]);
  });

  it("does not take another key's budget for this key's", () => {
    const entries = [created(), entry("key.update", { budget: "5" }, "key_2")];
    expect(read("en", ...entries)[1]).toBe("Budget set to ₽5.00.");
  });
});

describe("the other changes to a key", () => {
  it("say each field's old and new value, in the order of the key's page", () => {
    const entries = [
      created(),
      entry(
        "key.update",
        {
          name: "ci-bot-2",
          allowed_models: null,
          log_bodies: false,
          rpm: 60,
          tpm: 10000,
          max_parallel: 4,
          alert_at: [50, 90],
          expires_at: null,
        },
        "key_1",
      ),
    ];
    expect(read("en", ...entries)[1]).toBe(
      [
        "Renamed from “ci-bot” to “ci-bot-2”.",
        "Allowed models changed from demo-small to all models.",
        "Expiry changed from Dec 21, 2026, 13:00 to never.",
        "Request and response bodies are no longer kept in the request log.",
        "Requests-per-minute limit changed from no limit to 60.",
        "Tokens-per-minute limit changed from no limit to 10,000.",
        "Limit of requests at once changed from no limit to 4.",
        "Budget alerts changed from the gateway's defaults to 50, 90 % of the budget.",
      ].join(" "),
    );
    expect(read("ru", ...entries)[1]).toBe(
      [
        "Переименован: было «ci-bot», стало «ci-bot-2».",
        "Разрешённые модели изменены: было demo-small, стало все модели.",
        "Срок действия изменён: было до 21 дек. 2026 г., 13:00, стало бессрочно.",
        "Тела запросов и ответов больше не сохраняются в журнале запросов.",
        "Лимит запросов в минуту изменён: было без лимита, стало 60.",
        "Лимит токенов в минуту изменён: было без лимита, стало 10 000.",
        "Лимит одновременных запросов изменён: было без лимита, стало 4.",
        "Оповещения о бюджете изменены: было пороги шлюза по умолчанию, стало 50, 90 % бюджета.",
      ].join(" "),
    );
  });

  it("follow a field through several changes, and say when values were set with nothing before them", () => {
    const entries = [
      entry("key.update", { rpm: 10, alert_at: [] }, "key_5"),
      entry("key.update", { rpm: null, alert_at: null, log_bodies: true }, "key_5"),
      entry("key.update", { expires_at: "2027-01-01T00:00:00.000Z", allowed_models: ["a", "b"] }, "key_5"),
    ];
    expect(read("en", ...entries)).toEqual([
      "Requests-per-minute limit set to 10. Budget alerts set to none.",
      "Request and response bodies are now kept in the request log. Requests-per-minute limit changed from 10 to no limit. Budget alerts changed from none to the gateway's defaults.",
      "Allowed models set to a, b. Expiry set to Jan 1, 2027, 03:00.",
    ]);
  });

  it("describe a new key with everything it was created with", () => {
    expect(read("en", created({ rpm: 60, alert_at: [80] }), created({ alert_at: [] }))).toEqual([
      "Key “ci-bot” created: budget ₽50.00 per day, expires Dec 21, 2026, 13:00, models: demo-small, bodies logged, at most 60 requests a minute, 80 % of the budget.",
      "Key “ci-bot” created: budget ₽50.00 per day, expires Dec 21, 2026, 13:00, models: demo-small, bodies logged, no budget alerts.",
    ]);
    expect(
      read(
        "ru",
        created({ budget: null, expires_at: null, allowed_models: null, log_bodies: false, max_parallel: 2 }),
      ),
    ).toEqual([
      "Создан ключ «ci-bot»: без бюджета, бессрочный, все модели, тела не сохраняются, не больше 2 запросов одновременно.",
    ]);
  });

  it("describe a rotation with and without a grace period", () => {
    const rotated = (grace: string | null) =>
      entry(
        "key.rotate",
        { name: "ci-bot", previous_hint: "abcd", hint: "wxyz", grace_until: grace },
        "key_1",
      );
    expect(read("en", rotated(null), rotated("2026-11-22T10:00:00.000Z"))).toEqual([
      "Key “ci-bot” got a new value …wxyz in place of …abcd; the old value stopped working at once.",
      "Key “ci-bot” got a new value …wxyz in place of …abcd; the old value works until Nov 22, 2026, 13:00.",
    ]);
    expect(read("ru", rotated("2026-11-22T10:00:00.000Z"))).toEqual([
      "Ключ «ci-bot» получил новое значение …wxyz вместо …abcd; старое действует до 22 нояб. 2026 г., 13:00.",
    ]);
  });

  it("name the key that was disabled, enabled or revoked", () => {
    const entries = ["key.disable", "key.enable", "key.revoke"].map((action) =>
      entry(action, { name: "ci-bot" }, "key_1"),
    );
    expect(read("en", ...entries)).toEqual([
      "Key “ci-bot” disabled: its requests are refused until it is enabled.",
      "Key “ci-bot” enabled again.",
      "Key “ci-bot” revoked for good.",
    ]);
    expect(read("ru", ...entries)).toEqual([
      "Ключ «ci-bot» отключён: его запросы отклоняются, пока его не включат.",
      "Ключ «ci-bot» снова включён.",
      "Ключ «ci-bot» отозван навсегда.",
    ]);
  });
});

describe("an account's entries", () => {
  it("say the opening balance, the top-up and the dashboard token's hint", () => {
    const entries = [
      entry("account.create", { name: "Acme Corp", balance: "1000" }),
      entry("account.topup", { amount: "250.5" }),
      entry("account.token.create", { hint: "9f3c" }),
      entry("account.token.revoke", {}),
    ];
    expect(read("en", ...entries)).toEqual([
      "Account “Acme Corp” opened with a balance of ₽1,000.00.",
      "Balance topped up by ₽250.50.",
      "Dashboard token …9f3c issued; a previous one, if any, no longer works.",
      "The dashboard token was revoked.",
    ]);
    expect(read("ru", ...entries)).toEqual([
      "Открыт аккаунт «Acme Corp» с балансом 1 000,00 ₽.",
      "Баланс пополнен на 250,50 ₽.",
      "Выпущен токен кабинета …9f3c; прежний, если был, больше не действует.",
      "Токен кабинета отозван.",
    ]);
  });

  it("follow the low-balance mark from the account's creation on", () => {
    const entries = [
      entry("account.create", { name: "acme", balance: "0" }),
      entry("account.alerts.update", { low_balance: "5" }),
      entry("account.alerts.update", { low_balance: null }),
    ];
    expect(read("en", ...entries).slice(1)).toEqual([
      "Low-balance mark changed from no mark to ₽5.00.",
      "Low-balance mark changed from ₽5.00 to no mark.",
    ]);
    expect(read("ru", entry("account.alerts.update", { low_balance: "12.5" }))).toEqual([
      "Порог низкого баланса установлен: 12,50 ₽.",
    ]);
  });

  it("follow an account's and a key's sharing of the model server from their creation on", () => {
    const entries = [
      entry("account.create", { name: "acme", balance: "0" }),
      entry("account.sharing.update", { weight: 3, priority: -1 }),
      entry("account.sharing.update", { max_wait_ms: 5000, priority: null }),
      created(),
      entry("key.sharing.update", { priority: 4 }, "key_1"),
    ];
    const sentences = read("en", ...entries);
    expect(sentences[1]).toBe(
      "Weight changed from 1 to 3. Priority at the model server changed from none to -1.",
    );
    expect(sentences[2]).toBe(
      "Priority at the model server changed from -1 to none. Longest wait changed from the default to 5,000 ms.",
    );
    expect(sentences[4]).toBe("Priority at the model server changed from none to 4.");
    expect(read("ru", entry("account.sharing.update", { weight: 2 }))).toEqual(["Вес: 2."]);
  });

  it("say where the webhook goes and for which events, and that it was removed", () => {
    const entries = [
      entry("account.webhook.set", { origin: "https://hooks.example.com", events: null }),
      entry("account.webhook.set", {
        origin: "https://hooks.example.com",
        events: ["balance.low", "key.expired"],
      }),
      entry("account.webhook.remove", {}),
    ];
    expect(read("en", ...entries)).toEqual([
      "Webhook set to https://hooks.example.com, events: all.",
      "Webhook set to https://hooks.example.com, events: balance.low, key.expired.",
      "The webhook was removed.",
    ]);
    expect(read("ru", entries[0] as AuditEntry)).toEqual([
      "Вебхук установлен на https://hooks.example.com, события: все.",
    ]);
  });
});

describe("what the sentences do not know", () => {
  it("is still shown, its name made readable, in both languages", () => {
    const entries = [
      entry("key.revoke", { name: "ci-bot", reason: "leaked", by_ticket: 42, urgent: true }, "key_1"),
      entry("key.update", { colour_scheme: ["red", "blue"], extra: { a: 1 }, gone: null }, "key_1"),
    ];
    expect(read("en", ...entries)).toEqual([
      "Key “ci-bot” revoked for good. Reason: leaked. By ticket: 42. Urgent: yes.",
      'Colour scheme: red, blue. Extra: {"a":1}. Gone: none.',
    ]);
    expect(read("ru", ...entries)[0]).toBe(
      "Ключ «ci-bot» отозван навсегда. Reason — leaked. By ticket — 42. Urgent — да.",
    );
  });

  it("includes an action it has no sentence for", () => {
    expect(read("en", entry("account.renamed", { to_name: "Acme" }))).toEqual(["To name: Acme."]);
  });
});

describe("rawDetails", () => {
  it("gives the details as recorded", () => {
    expect(rawDetails({ budget: "100", period: "month", models: ["a"], rpm: null })).toBe(
      'budget: 100 · period: month · models: ["a"] · rpm: null',
    );
    expect(rawDetails({})).toBe("");
  });
});
