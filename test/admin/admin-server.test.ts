// The admin listener's requests over real HTTP: security headers on every answer, the OpenAPI document
// without a credential, the JSON API to the router, the dashboard's files at /, and a JSON 404 for anything
// else. On the suite's Redis, with dashboards built into temporary directories.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHandler } from "../../src/admin/admin-server.js";
import { openApiDocument } from "../../src/admin/openapi.js";
import { StaticFiles } from "../../src/admin/static.js";
import { ACTOR } from "../helpers/actor.js";
import { type Listening, listen } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import { captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const ADMIN = "admin-token-0123456789";
const directory = temporaryDirectories("tunnel-admin-ui-");

let store: TestStore;
let server: Listening;
const balances: [string, number][] = [];

function builtDashboard(): string {
  const dir = directory();
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>dashboard</title>");
  writeFileSync(join(dir, "assets", "app-1.js"), "console.log(1)");
  return dir;
}

beforeAll(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
  server = await listen(
    adminHandler({
      identity: testIdentity(store, { adminToken: ADMIN }),
      stores: store.stores,
      alerts: { allowHttp: false, thresholds: [80, 95, 100] },
      balanceChanged: (accountId, balance) => balances.push([accountId, balance]),
      logger: captureLogs().logger,
      ui: new StaticFiles(builtDashboard()),
    }),
  );
});
afterAll(async () => {
  await server.close();
  store.close();
});

const SECURITY_HEADERS = {
  "content-security-policy": expect.stringContaining("default-src 'none'"),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

describe("adminHandler", () => {
  it("sends the security headers on every answer: the API, its errors, the document and the dashboard", async () => {
    for (const [path, status] of [
      ["/admin/v1/me", 200],
      ["/admin/v1/accounts/ghost", 404],
      ["/admin/v1/openapi.json", 200],
      ["/", 200],
      ["/nothing", 404],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(res.status, path).toBe(status);
      expect(Object.fromEntries(res.headers), path).toMatchObject(SECURITY_HEADERS);
      await res.arrayBuffer();
    }
  });

  it("serves the OpenAPI document to anyone, as generated", async () => {
    const res = await fetch(`${server.url}/admin/v1/openapi.json?format=json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(openApiDocument());
  });

  it("hands the API to the router, with the services the gateway shares, and reports balance changes", async () => {
    const res = await fetch(`${server.url}/admin/v1/accounts/acme/topups`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "2.5" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { balance: number }).balance).toBe(12.5);
    expect((await store.accounts.require("acme")).balance).toBe(12_500_000);
    expect(balances).toEqual([["acme", 12_500_000]]);
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry?.actor).toBe("admin");
  });

  it("serves the dashboard's files, and answers any other path with a JSON 404 naming it", async () => {
    const index = await fetch(`${server.url}/index.html`);
    expect(await index.text()).toContain("<title>dashboard</title>");
    expect((await fetch(`${server.url}/assets/app-1.js`)).status).toBe(200);
    const missing = await fetch(`${server.url}/assets/app-2.js?v=1`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: "not_found",
        type: "invalid_request_error",
        message: "Nothing is served at /assets/app-2.js here.",
      },
    });
  });

  it("works without the dashboard built, saying so once, and without anyone watching balances", async () => {
    const logs = captureLogs();
    const bare = await listen(
      adminHandler({
        identity: testIdentity(store, { adminToken: ADMIN }),
        stores: store.stores,
        alerts: { allowHttp: false, thresholds: [80, 95, 100] },
        logger: logs.logger,
        ui: new StaticFiles(directory()),
      }),
    );
    try {
      expect(logs.lines).toEqual([
        expect.objectContaining({
          level: 40,
          msg: "the dashboard is not built (npm run build); the admin API works without it",
        }),
      ]);
      expect((await fetch(`${bare.url}/`)).status).toBe(404);
      const topUp = await fetch(`${bare.url}/admin/v1/accounts/acme/topups`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: 1 }),
      });
      expect(topUp.status).toBe(200);
      expect(logs.lines).toHaveLength(1);
    } finally {
      await bare.close();
    }
  });
});
