// An account as JSON (services/account-schema.ts): what the CLI prints and the admin API's Account extends —
// every view the views build parses as it, the values it admits (rubles, RUB, the billing modes, thresholds
// or null), and what it says of itself in the OpenAPI document (its sharing part a named component,
// budget_alert_at marked deprecated in favour of alert_at).

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PeriodCalendar } from "../../src/core/periods.js";
import { AccountSharing, AccountView } from "../../src/services/account-schema.js";
import { accountView } from "../../src/services/views.js";
import { accountRecord } from "../helpers/records.js";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const CLOCK = { now: () => NOW, calendar: new PeriodCalendar("UTC") };

const view = () => accountView(accountRecord(), CLOCK);

describe("AccountView", () => {
  it("admits every account view the views build: prepaid, and with windows, sharing and thresholds", () => {
    expect(AccountView.parse(view())).toEqual(view());
    const budgeted = accountView(
      accountRecord({
        billing: "budgeted",
        budgets: [
          { period: "day", budget: 5_000_000, spent: 1_000_000, periodStart: Date.parse("2026-11-21") },
        ],
        alertAt: [50, 90],
        weight: 3,
        priority: 1,
        maxWaitMs: 2000,
      }),
      CLOCK,
    );
    expect(AccountView.parse(budgeted)).toEqual(budgeted);
  });

  it("refuses a currency other than RUB, an unknown billing mode and a balance that is no number", () => {
    expect(AccountView.safeParse({ ...view(), currency: "USD" }).success).toBe(false);
    expect(AccountView.safeParse({ ...view(), billing: "postpaid" }).success).toBe(false);
    expect(AccountView.safeParse({ ...view(), balance: "10" }).success).toBe(false);
  });

  it("takes thresholds as a list, none as [] and the gateway's defaults as null", () => {
    for (const alert_at of [[80], [], null]) {
      expect(AccountView.safeParse({ ...view(), alert_at, budget_alert_at: alert_at }).success).toBe(true);
    }
    expect(AccountView.safeParse({ ...view(), alert_at: undefined }).success).toBe(false);
  });

  it("refuses a sharing part without its weight; priority and wait may be null", () => {
    expect(AccountSharing.safeParse({ weight: 1, priority: null, max_wait_ms: null }).success).toBe(true);
    expect(AccountSharing.safeParse({ priority: null, max_wait_ms: null }).success).toBe(false);
  });

  it("tells OpenAPI its sharing part by name and budget_alert_at as the deprecated spelling of alert_at", () => {
    const schema = z.toJSONSchema(AccountView, { target: "draft-2020-12" }) as {
      properties: Record<string, { deprecated?: boolean; description?: string; $ref?: string }>;
    };
    expect(schema.properties.budget_alert_at).toMatchObject({
      deprecated: true,
      description: expect.stringContaining("alert_at"),
    });
    expect(schema.properties.alert_at?.deprecated).toBeUndefined();
    expect(z.globalRegistry.get(AccountSharing)).toMatchObject({ id: "AccountSharing" });
  });
});
