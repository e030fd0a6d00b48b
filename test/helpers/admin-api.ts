// The admin listener as the mirrored tests of its route files drive it: adminHandler on a real HTTP server, on
// the suite's Redis under the test's own prefix, with an admin token, accounts "acme" and "other" and a
// dashboard token of acme's; `call` sends a request with a credential and answers its status and JSON.

import { adminHandler } from "../../src/admin/admin-server.js";
import type { AlertOptions } from "../../src/services/alerts.js";
import { ACTOR } from "./actor.js";
import { type Listening, listen } from "./http.js";
import { type IdentityOptions, testIdentity } from "./identity.js";
import { captureLogs } from "./logs.js";
import { openStore, type TestStore } from "./store.js";

export const ADMIN_TOKEN = "admin-api-test-token-0123456789";

export interface AdminAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface AdminApi {
  store: TestStore;
  url: string;
  /** acme's dashboard token: an account's credential, good for acme's routes only. */
  acmeToken: string;
  /** Balance changes the admin API reported, [account, µ₽]. */
  balances: [string, number][];
  /** A request as `credential` (the admin token unless given; null for none), the body sent as JSON. */
  call(
    method: string,
    path: string,
    options?: { as?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<AdminAnswer>;
  close(): Promise<void>;
}

export async function startAdminApi(
  options: {
    alerts?: Partial<AlertOptions>;
    /** The identity layer's settings besides the admin token (sign-in, providers and their secrets). */
    identity?: Omit<IdentityOptions, "adminToken">;
  } = {},
): Promise<AdminApi> {
  const store = await openStore();
  await store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  await store.accountService.create({ id: "other", balance: "50" }, ACTOR);
  const { token: acmeToken } = await store.accountService.createToken("acme", ACTOR);
  const balances: [string, number][] = [];
  let server: Listening;
  try {
    server = await listen(
      adminHandler({
        identity: testIdentity(store, { ...options.identity, adminToken: ADMIN_TOKEN }),
        stores: store.stores,
        alerts: { allowHttp: true, thresholds: [80, 95, 100], ...options.alerts },
        balanceChanged: (accountId, balance) => balances.push([accountId, balance]),
        logger: captureLogs().logger,
      }),
    );
  } catch (error) {
    store.close();
    throw error;
  }
  return {
    store,
    url: server.url,
    acmeToken,
    balances,
    async call(method, path, { as = ADMIN_TOKEN, body, headers: extra = {} } = {}) {
      const headers: Record<string, string> = { ...extra };
      if (as !== null) headers.authorization = `Bearer ${as}`;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await server.close();
      store.close();
    },
  };
}
