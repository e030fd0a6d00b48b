// Every alert event type, in one list, so that the Lua scripts (which write them), the delivery worker, the
// configuration's event filters, the metrics and the documentation name the same types. What each type's
// webhook body carries is in alerts/event-data.ts.

export const EVENT_TYPES = [
  "budget.threshold",
  "balance.low",
  "balance.exhausted",
  "key.expiring",
  "key.expired",
  "key.created",
  "key.revoked",
  "key.rotated",
  "key.disabled",
  "key.enabled",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The type of the events the "send a test event" buttons send; delivered only to the endpoint tested. */
export const TEST_EVENT_TYPE = "webhook.test";

export function isEventType(value: unknown): value is EventType {
  return typeof value === "string" && (EVENT_TYPES as readonly string[]).includes(value);
}
