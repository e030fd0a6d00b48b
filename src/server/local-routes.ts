// The endpoints the gateway answers itself on the public port. /healthz and /readyz need no key; /v1/key
// and /v1/balance need a key that is known, not revoked, not expired and presented with a value it still
// has, but cost nothing and answer even when the key is disabled or its budget or the balance is used up,
// so that a client can always read where it stands and why.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authenticator } from "../auth/authenticator.js";
import { assertUsable } from "../auth/key-status.js";
import type { PendingSettlements } from "../billing/pending-settlements.js";
import { GatewayError } from "../core/errors.js";
import { rublesForJson } from "../core/money.js";
import { sendJson } from "../http/respond.js";
import { budgetView, CURRENCY, keyState, keyView, limitsView, windowViews } from "../services/views.js";
import type { AccountRecord, KeyRecord } from "../store/records.js";
import type { Stores } from "../store/stores.js";
import type { Readiness } from "./readiness.js";

/** What the local routes read: the caller's key and its records, usage and recent requests; readiness. */
export interface LocalRouteDeps {
  authenticator: Pick<Authenticator, "resolve">;
  stores: Pick<Stores, "accounts" | "keys" | "usage" | "requestLog" | "calendar" | "now">;
  /** Whether to take traffic (with what is degraded), or why not. */
  readiness(): Promise<Readiness>;
  /** The settlements this replica holds and has not yet written (the gateway's; absent elsewhere). */
  pending?: Pick<PendingSettlements, "request">;
}

export type LocalRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: LocalRouteDeps,
) => Promise<void> | void;

export const LOCAL_ROUTES: ReadonlyMap<string, LocalRoute> = new Map<string, LocalRoute>([
  ["/healthz", (_req, res) => sendJson(res, 200, { status: "ok" })],
  ["/readyz", readyz],
  ["/v1/key", key],
  ["/v1/balance", balance],
]);

/** Methods the local routes answer; anything else gets 405. */
export const LOCAL_METHODS = "GET, HEAD";

async function readyz(_req: IncomingMessage, res: ServerResponse, ctx: LocalRouteDeps): Promise<void> {
  const readiness = await ctx.readiness();
  if (!readiness.ready) sendJson(res, 503, { status: "unavailable", reason: readiness.reason });
  else if (readiness.degraded) sendJson(res, 200, { status: "ready", degraded: readiness.degraded });
  else sendJson(res, 200, { status: "ready" });
}

async function key(req: IncomingMessage, res: ServerResponse, ctx: LocalRouteDeps): Promise<void> {
  const { key } = await usableKey(req, ctx);
  sendJson(res, 200, keyView(key, ctx.stores.now(), ctx.stores.calendar));
}

async function balance(req: IncomingMessage, res: ServerResponse, ctx: LocalRouteDeps): Promise<void> {
  const { key, account } = await usableKey(req, ctx);
  const now = ctx.stores.now();
  const { calendar } = ctx.stores;
  sendJson(res, 200, {
    account_id: account.id,
    balance: rublesForJson(account.balance),
    currency: CURRENCY,
    billing: account.billing,
    budgets: windowViews(account.budgets, now, calendar),
    key: {
      id: key.id,
      name: key.name,
      state: keyState(key, now),
      budget: budgetView(key, now, calendar),
      budgets: windowViews(key.budgets, now, calendar),
      limits: limitsView(key),
    },
  });
}

/** The key of the request's credential, refused when unknown, revoked or expired; with its account. */
export async function usableKey(
  req: IncomingMessage,
  ctx: LocalRouteDeps,
): Promise<{ key: KeyRecord; account: AccountRecord }> {
  const { ref, hash } = await ctx.authenticator.resolve(req.headers);
  const { key, account } = await ctx.stores.keys.getWithAccount(ref);
  if (!key || !account) throw new GatewayError("invalid_api_key");
  assertUsable(key, ctx.stores.now(), hash);
  return { key, account };
}
