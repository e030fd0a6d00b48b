// How the admin API shows accounts and keys: the client's view plus what only owners and operators see,
// in exactly the shapes its response schemas (and so its OpenAPI document) describe.

import { describe, expect, it } from "vitest";
import * as S from "../../src/admin/schemas.js";
import { adminAccountView, adminKeyView } from "../../src/admin/views.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import { keyView } from "../../src/services/views.js";
import { accountRecord, keyRecord } from "../helpers/records.js";

const utc = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");
const CLOCK = { now: () => NOW, calendar: utc };

describe("adminAccountView", () => {
  it("shows whether the account has a dashboard token by its hint, never its hash", () => {
    const view = adminAccountView(
      accountRecord({ balance: 1_500_000, tokenHash: "f00d", tokenHint: "wxyz" }),
      CLOCK,
    );
    expect(view).toEqual({
      id: "acme",
      name: "Acme Corp",
      balance: 1.5,
      currency: "RUB",
      created_at: "2026-11-01T08:00:00.000Z",
      sharing: { weight: 1, priority: null, max_wait_ms: null },
      billing: "prepaid",
      budgets: [],
      alert_at: null,
      budget_alert_at: null,
      token: { hint: "wxyz" },
    });
    expect(JSON.stringify(view)).not.toContain("f00d");
    expect(adminAccountView(accountRecord(), CLOCK).token).toBeNull();
  });

  it("is what the Account schema describes", () => {
    for (const view of [
      adminAccountView(accountRecord({ tokenHint: "wxyz" }), CLOCK),
      adminAccountView(accountRecord(), CLOCK),
    ])
      expect(S.Account.strict().parse(view)).toEqual(view);
  });
});

describe("adminKeyView", () => {
  it("adds the hint, the revocation time and the period to the client's view", () => {
    const key = keyRecord({
      budget: 2_000_000,
      spent: 500_000,
      period: "month",
      expiresAt: NOW + 3_600_000,
      revokedAt: NOW - 60_000,
    });
    const view = adminKeyView(key, NOW, utc);
    const client = keyView(key, NOW, utc);
    expect(view).toEqual({
      ...client,
      hint: "a1b2",
      revoked_at: "2026-11-21T09:59:00.000Z",
      state: "revoked",
      period: "month",
      alert_at: null,
      sharing: { priority: null, max_wait_ms: null },
    });
    expect(Object.keys(view)).toEqual([
      "id",
      "name",
      "account_id",
      "hint",
      "created_at",
      "expires_at",
      "revoked_at",
      "state",
      "grace_until",
      "disabled_at",
      "allowed_models",
      "log_bodies",
      "budget",
      "budgets",
      "period",
      "limits",
      "alert_at",
      "currency",
      "sharing",
    ]);
  });

  it("shows the key's state at the time asked, and its period even without a budget", () => {
    const key = keyRecord({ expiresAt: NOW, period: "week" });
    expect(adminKeyView(key, NOW - 1, utc)).toMatchObject({
      state: "active",
      revoked_at: null,
      period: "week",
      budget: null,
    });
    expect(adminKeyView(key, NOW, utc).state).toBe("expired");
  });

  it("is what the Key schema describes, with and without a budget, expiry or revocation", () => {
    for (const key of [
      keyRecord(),
      keyRecord({
        budget: 1,
        spent: 0,
        expiresAt: NOW,
        revokedAt: NOW,
        allowedModels: ["m"],
        logBodies: false,
      }),
    ]) {
      const view = adminKeyView(key, NOW, utc);
      expect(S.Key.strict().parse(view)).toEqual(view);
    }
  });
});
