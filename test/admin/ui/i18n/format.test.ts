// The dashboard's number and date formats: rubles as Russian and English readers write them.

import { describe, expect, it } from "vitest";
import {
  billingOffsetMinutes,
  daySeconds,
  formatAxisDay,
  formatBillingInstant,
  formatCurrency,
  formatCurrencyShort,
  formatDay,
  formatInstant,
  formatInstantUtc,
  formatMs,
  formatNumber,
  formatOffset,
  plainSpaces,
} from "../../../../src/admin/ui/i18n/format.js";

describe("rubles", () => {
  it("are written the Russian way in Russian: 1 234,56 ₽", () => {
    const text = formatCurrency("ru", 1234.56);
    // Intl separates with no-break spaces; whichever it uses, the text reads as 1 234,56 ₽.
    expect(text).toMatch(/^1[\u00a0\u202f ]234,56[\u00a0\u202f ]₽$/);
    expect(plainSpaces(text)).toBe("1 234,56 ₽");
    expect(plainSpaces(formatCurrency("ru", 1_000_000))).toBe("1 000 000,00 ₽");
    expect(plainSpaces(formatCurrency("ru", 0))).toBe("0,00 ₽");
    expect(plainSpaces(formatCurrency("ru", -12.5))).toBe("-12,50 ₽");
  });

  it("are written with the ruble sign in English: ₽1,234.56", () => {
    expect(formatCurrency("en", 1234.56)).toBe("₽1,234.56");
    expect(formatCurrency("en", 999_999_999.999999)).toBe("₽999,999,999.999999");
  });

  it("keep every micro-ruble an amount has, and always show kopecks", () => {
    expect(plainSpaces(formatCurrency("ru", 0.000123))).toBe("0,000123 ₽");
    expect(formatCurrency("en", 0.0025)).toBe("₽0.0025");
    expect(formatCurrency("en", 7)).toBe("₽7.00");
    expect(formatCurrency("en", 12.5)).toBe("₽12.50");
  });

  it("are rounded for chart axes", () => {
    expect(formatCurrencyShort("en", 1500)).toBe("₽1,500");
    expect(formatCurrencyShort("en", 2.5)).toBe("₽2.5");
    expect(formatCurrencyShort("en", 0.0025)).toBe("₽0.0025");
    expect(plainSpaces(formatCurrencyShort("ru", 0))).toBe("0 ₽");
  });
});

describe("numbers and durations", () => {
  it("group digits per language", () => {
    expect(plainSpaces(formatNumber("ru", 12345))).toBe("12 345");
    expect(formatNumber("en", 12345)).toBe("12,345");
  });

  it("write milliseconds with the unit, and a dash for none", () => {
    expect(formatMs("en", 120)).toBe("120 ms");
    expect(plainSpaces(formatMs("ru", 1500))).toBe("1 500 мс");
    expect(formatMs("ru", null)).toBe("—");
  });
});

describe("dates", () => {
  it("show API instants in the reader's time zone", () => {
    expect(formatInstant("en", "2026-11-21T10:05:00.000Z", "Europe/Moscow")).toBe("Nov 21, 2026, 13:05");
    expect(formatInstant("en", "2026-11-21T10:05:00.000Z", "America/New_York")).toBe("Nov 21, 2026, 05:05");
    expect(plainSpaces(formatInstant("ru", "2026-11-21T23:59:00.000Z", "Asia/Vladivostok"))).toBe(
      "22 нояб. 2026 г., 09:59",
    );
    expect(formatInstant("en", "not a date", "UTC")).toBe("not a date");
  });

  it("show API instants in the browser's own time zone when none is named", () => {
    const iso = "2026-07-01T12:34:00.000Z";
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(formatInstant("en", iso)).toBe(formatInstant("en", iso, zone));
  });

  it("give the same instant in UTC, saying so, for the hover", () => {
    expect(formatInstantUtc("en", "2026-11-21T10:05:00.000Z")).toBe("Nov 21, 2026, 10:05 UTC");
    expect(plainSpaces(formatInstantUtc("ru", "2026-11-21T23:59:00.000Z"))).toBe(
      "21 нояб. 2026 г., 23:59 UTC",
    );
    expect(formatInstantUtc("en", "not a date")).toBe("not a date");
  });

  it("find the billing time zone's offset from a budget reset, which is a midnight there", () => {
    expect(billingOffsetMinutes("2026-11-30T21:00:00.000Z")).toBe(180); // Europe/Moscow
    expect(billingOffsetMinutes("2026-12-01T00:00:00.000Z")).toBe(0); // UTC
    expect(billingOffsetMinutes("2026-12-01T05:00:00.000Z")).toBe(-300); // America/New_York
    expect(billingOffsetMinutes("2026-11-30T18:30:00.000Z")).toBe(330); // Asia/Kolkata
    expect(billingOffsetMinutes("2026-11-30T12:00:00.000Z")).toBe(720); // Pacific/Auckland (winter)
    // +13:00 reads as -11:00: the same instant, written on the other side of the date line.
    expect(billingOffsetMinutes("2026-11-30T11:00:00.000Z")).toBe(-660);
  });

  it("write offsets the ISO way", () => {
    expect(formatOffset(180)).toBe("UTC+03:00");
    expect(formatOffset(-330)).toBe("UTC-05:30");
    expect(formatOffset(0)).toBe("UTC");
  });

  it("show a budget reset as the billing time zone's midnight, with its offset, wherever the reader is", () => {
    expect(formatBillingInstant("en", "2026-11-30T21:00:00.000Z")).toBe("Dec 1, 2026, 00:00 UTC+03:00");
    expect(plainSpaces(formatBillingInstant("ru", "2026-11-30T21:00:00.000Z"))).toBe(
      "1 дек. 2026 г., 00:00 UTC+03:00",
    );
    expect(formatBillingInstant("en", "2026-12-01T05:00:00.000Z")).toBe("Dec 1, 2026, 00:00 UTC-05:00");
    expect(formatBillingInstant("en", "2026-12-01T00:00:00.000Z")).toBe("Dec 1, 2026, 00:00 UTC");
    expect(formatBillingInstant("en", "soon")).toBe("soon");
  });

  it("show a budget reset in the billing time zone the gateway names, the zone named too", () => {
    expect(formatBillingInstant("en", "2026-11-30T21:00:00.000Z", "Europe/Moscow")).toBe(
      "Dec 1, 2026, 00:00 (Europe/Moscow)",
    );
    // Past +12:00 the zone's own name keeps the right date, where the offset alone could not tell.
    expect(formatBillingInstant("en", "2026-11-30T10:00:00.000Z", "Pacific/Kiritimati")).toBe(
      "Dec 1, 2026, 00:00 (Pacific/Kiritimati)",
    );
    // A zone the browser does not know falls back to the offset.
    expect(formatBillingInstant("en", "2026-11-30T21:00:00.000Z", "Mars/Olympus")).toBe(
      "Dec 1, 2026, 00:00 UTC+03:00",
    );
  });

  it("show calendar days without shifting them to another time zone", () => {
    expect(formatDay("en", "2026-01-01")).toBe("Jan 1, 2026");
    expect(plainSpaces(formatDay("ru", "2026-12-31"))).toBe("31 дек. 2026 г.");
    expect(daySeconds("2026-11-21")).toBe(Date.parse("2026-11-21T00:00:00Z") / 1000);
    expect(formatAxisDay("en", daySeconds("2026-11-21"))).toBe("Nov 21");
  });
});
