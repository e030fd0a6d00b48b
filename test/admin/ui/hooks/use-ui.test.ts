// What every view of the dashboard is given: the language with its translations and formatters bound to it.

import { describe, expect, it } from "vitest";
import { makeUi } from "../../../../src/admin/ui/hooks/use-ui.js";
import { formatCurrency } from "../../../../src/admin/ui/i18n/format.js";

describe("makeUi", () => {
  it("translates and formats in Russian for a Russian page", () => {
    const ui = makeUi("ru");
    expect(ui.lang).toBe("ru");
    expect(ui.t("common.loading")).toBe("Загрузка…");
    expect(ui.rub(1234.56)).toMatch(/^1[\u00a0\u202f ]234,56[\u00a0\u202f ]₽$/);
    expect(ui.num(1234567)).toMatch(/^1[\u00a0\u202f ]234[\u00a0\u202f ]567$/);
  });

  it("translates and formats in English for an English page, filling in values", () => {
    const ui = makeUi("en");
    expect(ui.t("common.loading")).toBe("Loading…");
    expect(ui.t("audit.actor.account", { id: "acme" })).toBe("account acme");
    expect(ui.rub(1234.56)).toBe("₽1,234.56");
    expect(ui.num(1234567)).toBe("1,234,567");
  });

  it("binds every formatter to its language, none to the other", () => {
    const ru = makeUi("ru");
    const en = makeUi("en");
    expect(ru.rub(0.000123)).toBe(formatCurrency("ru", 0.000123));
    expect(ru.rub(1.5)).not.toBe(en.rub(1.5));
    expect(ru.rubShort(1500)).not.toBe(en.rubShort(1500));
    expect(ru.ms(1500)).not.toBe(en.ms(1500));
    expect(ru.instant("2026-11-21T10:00:00.000Z")).not.toBe(en.instant("2026-11-21T10:00:00.000Z"));
    expect(ru.day("2026-11-21")).not.toBe(en.day("2026-11-21"));
    expect(en.ms(null)).toBe(makeUi("en").ms(null));
  });

  it("shows instants in the time zone it is given, with UTC and the billing time zone beside", () => {
    const ui = makeUi("en", "Asia/Yekaterinburg");
    expect(ui.instant("2026-11-21T10:00:00.000Z")).toBe("Nov 21, 2026, 15:00");
    expect(ui.instantUtc("2026-11-21T10:00:00.000Z")).toBe("Nov 21, 2026, 10:00 UTC");
    expect(ui.billingInstant("2026-11-30T21:00:00.000Z")).toBe("Dec 1, 2026, 00:00 UTC+03:00");
    expect(makeUi("en", "UTC").instant("2026-11-21T10:00:00.000Z")).toBe("Nov 21, 2026, 10:00");
  });
});
