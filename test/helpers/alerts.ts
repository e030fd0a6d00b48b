// What the alert tests share: the alerts section that sends a gateway's events to a test receiver, the
// signature check of docs/alerts-and-webhooks.md (loaded from the page itself, so that the documented snippet
// is the one proven), reading an event's delivery from Redis, and spending part of a key's budget directly.

import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { overallStatus, parseState } from "../../src/alerts/delivery-plan.js";
import type { EventType } from "../../src/core/event-types.js";
import type { StoredEvent } from "../../src/store/accounts/event-store.js";
import type { TestStore } from "./store.js";
import { temporaryDirectories } from "./temp-dir.js";
import { waitUntil } from "./wait.js";

export const WEBHOOK_SECRET = "whsec_operator_test_secret_0123456789";
export const WEBHOOK_SECRET_ENV = "TEST_WEBHOOK_SECRET";
export const WEBHOOK_ENV = { [WEBHOOK_SECRET_ENV]: WEBHOOK_SECRET };

/** An alerts section sending every event of `events` (all when omitted) to the receiver, polled every 20 ms. */
export function alertsTo(url: string, events?: EventType[], delivery: Record<string, number> = {}) {
  return {
    allowHttp: true,
    allowPrivateNetworks: true,
    webhooks: [{ url, secretEnv: WEBHOOK_SECRET_ENV, ...(events && { events }) }],
    delivery: { pollIntervalMs: 20, sweepSeconds: 1, timeoutMs: 2000, ...delivery },
  };
}

type Verify = (
  secret: string,
  header: string,
  rawBody: string,
  options?: { toleranceSeconds?: number; now?: number },
) => boolean;

const temporaryDirectory = temporaryDirectories("tunnel-snippet-");
let loaded: Verify | undefined;

/** verifyTunnelSignature, exactly as docs/alerts-and-webhooks.md shows it, imported from its text. */
export async function documentedVerify(): Promise<Verify> {
  if (loaded) return loaded;
  const page = readFileSync(new URL("../../docs/alerts-and-webhooks.md", import.meta.url), "utf8");
  const block = [...page.matchAll(/^```js\n([\s\S]*?)^```/gm)]
    .map((match) => match[1] as string)
    .find((code) => code.includes("export function verifyTunnelSignature"));
  if (!block) throw new Error("docs/alerts-and-webhooks.md has no js block with verifyTunnelSignature");
  const file = join(temporaryDirectory(), "verify.mjs");
  writeFileSync(file, block);
  const module = (await import(pathToFileURL(file).href)) as { verifyTunnelSignature: Verify };
  loaded = module.verifyTunnelSignature;
  return loaded;
}

/** The account's events, oldest first, each with its delivery status and state. */
export async function eventsOf(store: TestStore, accountId: string) {
  const listed = await store.stores.events.recent(accountId, 200);
  return listed.reverse().map(({ event, state, handedOut }) => {
    const parsed = parseState(state);
    return {
      event,
      state: parsed,
      status: parsed === null || !handedOut ? "queued" : overallStatus(parsed),
    };
  });
}

/** Waits until the account's event of `type` (the first, or the one `which` picks) has `status`. */
export async function waitForDelivery(
  store: TestStore,
  accountId: string,
  which: (event: StoredEvent) => boolean,
  status: string,
  timeoutMs = 10_000,
): Promise<StoredEvent> {
  let found: StoredEvent | undefined;
  await waitUntil(
    async () => {
      const match = (await eventsOf(store, accountId)).find((entry) => which(entry.event));
      found = match?.event;
      return match?.status === status;
    },
    `an event of account ${accountId} to be ${status}`,
    timeoutMs,
  );
  return found as StoredEvent;
}

/** Charges a key `micros` directly through the billing scripts, as a finished request would. */
export async function spend(store: TestStore, ref: { accountId: string; keyId: string }, micros: number) {
  const now = store.clock.now();
  const reservationId = randomUUID();
  const key = await store.keys.get(ref);
  await store.billing.reserve(ref, {
    reservationId,
    amount: 0,
    tokens: 0,
    keyHash: key?.hash ?? "",
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  return store.billing.settle({
    ref,
    reservationId,
    logEntry: "{}",
    logEntryWithBodies: "",
    model: null,
    cost: micros,
    promptTokens: 1,
    completionTokens: 1,
    failed: false,
    estimated: false,
    latencyMs: 1,
    periods: store.calendar.at(now),
    day: store.calendar.dayOf(now),
    now,
  });
}
