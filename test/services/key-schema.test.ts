// A key's JSON comes from one schema: each audience's view is the complete view through its schema's
// serializer, which writes exactly the schema's fields in the schema's order, and the client's schema leaves
// out what only the key's owner and operators see.

import { describe, expect, it } from "vitest";
import { adminKeyView } from "../../src/admin/views.js";
import { PeriodCalendar } from "../../src/core/periods.js";
import { CLIENT_KEY_FIELDS, LISTED_KEY_FIELDS } from "../../src/services/key-fields.js";
import { ClientKey, Key, ListedKey, serializerFor } from "../../src/services/key-schema.js";
import { completeKeyView, keyListView, keyView } from "../../src/services/views.js";
import { keyRecord } from "../helpers/records.js";

const utc = new PeriodCalendar("UTC");
const NOW = Date.parse("2026-11-21T10:00:00Z");
const record = keyRecord({ budget: 5_000_000, spent: 1_000_000, revokedAt: NOW - 1, alertAt: [50] });

describe("serializerFor", () => {
  it("writes exactly the schema's fields, in its order, and nothing else the view holds", () => {
    const view = { ...completeKeyView(record, NOW, utc), secret: "sk-tunnel-…" };
    const written = serializerFor(ClientKey)(view);
    expect(Object.keys(written)).toEqual([...CLIENT_KEY_FIELDS]);
    expect(written).not.toHaveProperty("secret");
    expect(written).not.toHaveProperty("hint");
    expect(written.budget).toEqual(view.budget);
  });
});

describe("the key's views", () => {
  it("give each audience the fields of its schema, in its order, as the schema reads them", () => {
    for (const [view, schema] of [
      [adminKeyView(record, NOW, utc), Key],
      [keyView(record, NOW, utc), ClientKey],
      [keyListView(record, NOW, utc), ListedKey],
    ] as const) {
      expect(Object.keys(view)).toEqual(Object.keys(schema.shape));
      expect(schema.strict().parse(view)).toEqual(view);
    }
    expect(Object.keys(ClientKey.shape)).toEqual([...CLIENT_KEY_FIELDS]);
    expect(Object.keys(ListedKey.shape)).toEqual([...LISTED_KEY_FIELDS]);
  });

  it("keep the hint, the revocation time, the period, the alert thresholds and the fair-sharing settings from the key's client", () => {
    const ownersOnly = Object.keys(Key.shape).filter(
      (field) => !(CLIENT_KEY_FIELDS as readonly string[]).includes(field),
    );
    expect(ownersOnly).toEqual(["hint", "revoked_at", "period", "alert_at", "sharing"]);
    expect(Object.keys(keyView(record, NOW, utc))).not.toContain("hint");
  });
});
