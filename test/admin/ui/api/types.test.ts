// The dashboard's view of what a key's client sees at GET /v1/key, derived from the admin API's view of the
// key: it must be exactly what the gateway serves, field for field.

import { describe, expect, it } from "vitest";
import { clientKeyView, type Key } from "../../../../src/admin/ui/api/types.js";
import { adminKeyView } from "../../../../src/admin/views.js";
import { PeriodCalendar } from "../../../../src/core/periods.js";
import { keyView } from "../../../../src/services/views.js";
import { keyRecord } from "../../../helpers/records.js";

const utc = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");

describe("clientKeyView", () => {
  it("is exactly what /v1/key shows the key's client, whatever the key", () => {
    for (const record of [
      keyRecord(),
      keyRecord({
        budget: 5_000_000,
        spent: 1_000_000,
        period: "week",
        periodStart: Date.parse("2026-11-16T00:00:00Z"),
        expiresAt: NOW + 1000,
        allowedModels: ["m"],
        logBodies: false,
        revokedAt: NOW - 1,
      }),
      keyRecord({
        previousUntil: NOW + 1000,
        disabledAt: NOW - 1000,
        limits: { rpm: 10, tpm: null, maxParallel: 2 },
      }),
    ]) {
      const admin = adminKeyView(record, NOW, utc) as Key;
      expect(clientKeyView(admin)).toEqual(keyView(record, NOW, utc));
    }
  });

  it("leaves out what only owners and operators see", () => {
    const view = clientKeyView(adminKeyView(keyRecord({ revokedAt: NOW }), NOW, utc) as Key);
    for (const field of ["hint", "revoked_at", "period"]) expect(view).not.toHaveProperty(field);
  });
});
