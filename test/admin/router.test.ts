// The admin router over real HTTP, with a route table of its own: matching method and path templates,
// decoding parameters, identifying the caller, applying the permission table to the route's action before
// anything is read,
// validating query and body (unknown fields refused, the problem named), and answering errors from the
// table — logged only when they are the gateway's fault. Credentials on the suite's Redis.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AdminServices, Call, Route } from "../../src/admin/route.js";
import { createAdminRouter } from "../../src/admin/router.js";
import { GatewayError } from "../../src/core/errors.js";
import { ACTOR } from "../helpers/actor.js";
import { type Listening, listen } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import { captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";

const ADMIN = "admin-token-0123456789";
const calls: Call[] = [];

function route(fields: Partial<Route> & Pick<Route, "method" | "path">): Route {
  return {
    operationId: "op",
    summary: "a route",
    action: "keys.read",
    status: 200,
    response: z.unknown(),
    async handle(call) {
      calls.push(call);
      return { params: call.params, query: call.query, body: call.body ?? null };
    },
    ...fields,
  } as Route;
}

const ROUTES: Route[] = [
  route({ method: "GET", path: "/admin/v1/accounts/{accountId}/things/{thing}" }),
  route({
    method: "PATCH",
    path: "/admin/v1/accounts/{accountId}/things/{thing}",
    action: "keys.write",
    body: z.strictObject({ name: z.string(), count: z.number().optional() }),
  }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/{accountId}/list",
    query: z.strictObject({
      limit: z
        .string()
        .regex(/^[1-9]\d*$/, "must be a whole number from 1 on")
        .optional(),
    }),
  }),
  route({
    method: "POST",
    path: "/admin/v1/accounts",
    action: "accounts.create",
    status: 201,
    body: z.strictObject({ id: z.string() }),
  }),
  route({ method: "GET", path: "/admin/v1/accounts", action: "me" }),
  route({
    method: "GET",
    path: "/admin/v1/accounts/{accountId}/export.csv",
    csv: ({ params }) => `${params.accountId} "export".csv`,
    async handle() {
      return "name,amount\r\nПродакшн,1.5\r\n";
    },
  }),
  route({
    method: "GET",
    path: "/admin/v1/fail/{how}",
    action: "overview.read",
    async handle({ params }) {
      if (params.how === "refusal") throw new GatewayError("key_not_found", "no such key here");
      throw new Error("a bug of ours");
    },
  }),
];

let store: TestStore;
let server: Listening;
let acmeToken: string;
const logs = captureLogs();

beforeAll(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
  acmeToken = (await store.accountService.createToken("acme", ACTOR)).token;
  const router = createAdminRouter(
    ROUTES,
    { identity: testIdentity(store, { adminToken: ADMIN }) } as AdminServices,
    logs.logger,
  );
  server = await listen((req, res) => {
    if (!router.handle(req, res)) res.writeHead(418).end("not mine");
  });
});
afterAll(async () => {
  await server.close();
  store.close();
});

async function send(
  method: string,
  path: string,
  options: { token?: string | null; body?: string; type?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const token = options.token === undefined ? ADMIN : options.token;
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = options.type ?? "application/json";
  const res = await fetch(`${server.url}${path}`, { method, headers, body: options.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

describe("a CSV route", () => {
  it("answers its text as a UTF-8 download with a byte order mark, named safely, never cached", async () => {
    const res = await fetch(`${server.url}/admin/v1/accounts/acme/export.csv`, {
      headers: { authorization: `Bearer ${acmeToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="acme__export_.csv"');
    expect(res.headers.get("cache-control")).toBe("no-store");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe("name,amount\r\nПродакшн,1.5\r\n");
  });

  it("applies the route's access rule like any other", async () => {
    const other = await send("GET", "/admin/v1/accounts/globex/export.csv", { token: acmeToken });
    expect(other.status).toBe(403);
  });
});

describe("matching", () => {
  it("leaves every path outside /admin/v1/ and /auth/ to the caller", async () => {
    for (const path of ["/", "/admin", "/admin/v1", "/admin/v2/accounts", "/v1/admin/v1/accounts"]) {
      expect((await send("GET", path)).status, path).toBe(418);
    }
  });

  it("fills a template's parameters, percent-decoded, and answers with the route's status", async () => {
    const res = await send("GET", "/admin/v1/accounts/acme/things/a%2Fb%20c");
    expect(res.status).toBe(200);
    expect(res.body.params).toEqual({ accountId: "acme", thing: "a/b c" });
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect((await send("POST", "/admin/v1/accounts", { body: '{"id":"x"}' })).status).toBe(201);
  });

  it("refuses a parameter that is not valid percent-encoding with 400, naming it", async () => {
    const res = await send("GET", "/admin/v1/accounts/acme/things/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "invalid_request",
      message: 'The path segment "%E0%A4%A" is not valid percent-encoding.',
    });
  });

  it("answers 404 for an unknown route, and 405 with every allowed method for a known path", async () => {
    const missing = await send("GET", "/admin/v1/accounts/acme/nothing");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      code: "not_found",
      message: "There is no admin API route /admin/v1/accounts/acme/nothing.",
    });
    const wrong = await send("DELETE", "/admin/v1/accounts/acme/things/t");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, PATCH");
    expect(wrong.body.error.message).toBe(
      "DELETE is not allowed on /admin/v1/accounts/acme/things/t; use GET, PATCH.",
    );
    // A template parameter does not span segments.
    expect((await send("GET", "/admin/v1/accounts/acme/things/a/b")).status).toBe(404);
  });
});

describe("access", () => {
  it("asks for a credential first, with 401 admin_unauthorized and WWW-Authenticate", async () => {
    const res = await send("GET", "/admin/v1/accounts/acme/things/t", { token: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("admin_unauthorized");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tunnel-gateway"');
  });

  it("lets an account's token at its own account only, and at no operator route, before reading the request", async () => {
    expect((await send("GET", "/admin/v1/accounts/acme/things/t", { token: acmeToken })).status).toBe(200);
    const other = await send("PATCH", "/admin/v1/accounts/other/things/t", {
      token: acmeToken,
      body: "not json",
    });
    expect(other.status).toBe(403);
    expect(other.body.error.message).toBe(
      "This token belongs to account acme and cannot access account other.",
    );
    const operatorOnly = await send("POST", "/admin/v1/accounts", {
      token: acmeToken,
      body: '{"unknown":1}',
    });
    expect(operatorOnly.status).toBe(403);
    expect(operatorOnly.body.error.message).toBe("The token of account acme may not create an account.");
    const query = await send("GET", "/admin/v1/accounts/other/list?limit=zero", { token: acmeToken });
    expect(query.status).toBe(403);
    // A route without an account in its path is open to any known credential.
    expect((await send("GET", "/admin/v1/accounts", { token: acmeToken })).status).toBe(200);
  });

  it("hands the handler who called", async () => {
    calls.length = 0;
    await send("GET", "/admin/v1/accounts/acme/things/t", { token: acmeToken });
    await send("GET", "/admin/v1/accounts/acme/things/t");
    expect(calls.map((call) => [call.principal.credential, call.principal.actor])).toEqual([
      [
        { kind: "account-token", accountId: "acme" },
        { kind: "account", accountId: "acme" },
      ],
      [{ kind: "admin-token" }, { kind: "admin" }],
    ]);
  });
});

describe("queries", () => {
  it("are validated by the route's schema, naming an unknown parameter or a bad value", async () => {
    expect((await send("GET", "/admin/v1/accounts/acme/list?limit=5")).body.query).toEqual({ limit: "5" });
    expect((await send("GET", "/admin/v1/accounts/acme/list")).body.query).toEqual({});
    const unknown = await send("GET", "/admin/v1/accounts/acme/list?limit=5&offset=2");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe("Invalid query: unknown parameter offset.");
    const bad = await send("GET", "/admin/v1/accounts/acme/list?limit=0");
    expect(bad.body.error.message).toBe("Invalid query: limit: must be a whole number from 1 on.");
  });

  it("are refused on a route that takes none", async () => {
    const res = await send("GET", "/admin/v1/accounts/acme/things/t?verbose=1&x=2");
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("This route takes no query parameters; got verbose, x.");
  });
});

describe("bodies", () => {
  const path = "/admin/v1/accounts/acme/things/t";

  it("are JSON validated by the route's schema and handed over parsed", async () => {
    const res = await send("PATCH", path, {
      body: '{"name":"n","count":2}',
      type: "application/json; charset=utf-8",
    });
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual({ name: "n", count: 2 });
  });

  it("must be sent as JSON, and be JSON", async () => {
    const plain = await send("PATCH", path, { body: '{"name":"n"}', type: "text/plain" });
    expect(plain.status).toBe(400);
    expect(plain.body.error.message).toBe("Send the body as JSON with Content-Type: application/json.");
    const broken = await send("PATCH", path, { body: '{"name":' });
    expect(broken.body.error.message).toBe("The body is not valid JSON.");
    expect((await send("PATCH", path, { token: ADMIN })).status).toBe(400);
  });

  it("are refused naming an unknown field or the field of the wrong type", async () => {
    const unknown = await send("PATCH", path, { body: '{"name":"n","colour":"red","size":1}' });
    expect(unknown.body.error.message).toBe("Invalid body: unknown field colour, size.");
    const wrongType = await send("PATCH", path, { body: '{"name":5}' });
    expect(wrongType.body.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/^Invalid body: name: .*expected string/),
    });
    const notObject = await send("PATCH", path, { body: "[1]" });
    expect(notObject.body.error.message).toMatch(/^Invalid body: .*expected object/);
  });

  it("are refused beyond 64 KiB with 413 payload_too_large", async () => {
    const big = JSON.stringify({ name: "x".repeat(64 * 1024) });
    const res = await send("PATCH", path, { body: big });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
  });
});

describe("failures", () => {
  it("answer a refusal with its error and log nothing; answer a bug with 500 and log it with the path", async () => {
    logs.lines.length = 0;
    const refusal = await send("GET", "/admin/v1/fail/refusal");
    expect(refusal.status).toBe(404);
    expect(refusal.body.error).toEqual({
      code: "key_not_found",
      message: "no such key here",
      type: "invalid_request_error",
    });
    expect(logs.lines).toEqual([]);

    const bug = await send("GET", "/admin/v1/fail/bug");
    expect(bug.status).toBe(500);
    expect(bug.body.error.code).toBe("internal_error");
    expect(JSON.stringify(bug.body)).not.toContain("a bug of ours");
    expect(logs.lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "admin API failed",
        path: "/admin/v1/fail/bug",
        err: expect.objectContaining({ message: "a bug of ours" }),
      }),
    ]);
  });
});
