// The subscribers of the identity events (core/identity-events.ts): each event one log line — info or warn,
// as its outcome is declared — and one count of identity_events_total{event, outcome}. Subscribed for one
// IdentityEvents: events another gateway in the same process publishes are not this one's.

import { createHash } from "node:crypto";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Logger } from "pino";
import { type IdentityEvent, type IdentityEvents, identityChannelName } from "../core/channels.js";
import { IDENTITY_EVENT_NAMES, IDENTITY_EVENTS, levelOf } from "../core/identity-events.js";
import type { GatewayMetrics } from "./gateway-metrics.js";

/** The log line's fields: named one by one, so that nothing an event did not declare can reach it. */
export function identityLogFields(event: IdentityEvent): Record<string, string | number> {
  const fields: Record<string, string | number> = { event: event.event, outcome: event.outcome };
  if (event.userId !== undefined) fields.user = event.userId;
  if (event.email !== undefined)
    fields.email_sha256 = createHash("sha256").update(event.email).digest("hex").slice(0, 16);
  if (event.provider !== undefined) fields.provider = event.provider;
  if (event.address !== undefined) fields.address = event.address;
  if (event.accountId !== undefined) fields.account = event.accountId;
  if (event.tokenId !== undefined) fields.token_id = event.tokenId;
  if (event.invitationId !== undefined) fields.invitation_id = event.invitationId;
  if (event.detail !== undefined) fields.detail = event.detail;
  if (event.count !== undefined) fields.count = event.count;
  return fields;
}

/** Logs and counts `events`' identity events until the returned function is called. */
export function observeIdentityEvents(
  events: IdentityEvents,
  logger: Logger,
  metrics: Pick<GatewayMetrics, "identityEvent">,
): () => void {
  const handler = (message: unknown) => {
    const event = message as IdentityEvent;
    if (event.emitter !== events) return;
    const line = IDENTITY_EVENTS[event.event].message;
    if (levelOf(event.event, event.outcome) === "info") logger.info(identityLogFields(event), line);
    else logger.warn(identityLogFields(event), line);
    metrics.identityEvent(event.event, event.outcome);
  };
  for (const name of IDENTITY_EVENT_NAMES) subscribe(identityChannelName(name), handler);
  return () => {
    for (const name of IDENTITY_EVENT_NAMES) unsubscribe(identityChannelName(name), handler);
  };
}
