// Every operation of the OpenAPI document, for every kind of caller, over real HTTP: each person's role
// (operator, operator-viewer, and owner, member and viewer of one account, each signed in with a session), the
// legacy admin and account tokens, API tokens, and callers who should get nothing — no credential, an expired
// session, a revoked session, a token of another account. The expected answer comes from the operation's
// x-action and the permission table: allowed is anything but 401 and 403 (a 400 for the empty body, a 404
// for the made-up ids: the call got past the permission check); refused is 403 forbidden; no valid credential
// is 401. The document is generated from the route table, so a new route cannot be left out.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/admin/openapi.js";
import type { Role } from "../../src/core/roles.js";
import type { Identity } from "../../src/identity/identity.js";
import { type Action, allows, PERMISSIONS } from "../../src/identity/permissions.js";
import { sha256 } from "../../src/identity/secrets.js";
import { sessionHandle } from "../../src/identity/sessions.js";
import { ACTOR } from "../helpers/actor.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";

const ADMIN = "admin-token-0123456789";

interface Caller {
  name: string;
  /** Headers for one request (a fresh session each time for people, so that signing out ends only it). */
  headers(unsafe: boolean): Promise<Record<string, string>>;
  /** What the caller holds: roles in "acme" and over every account, and what kind of credential. */
  expect(action: Action): "allowed" | "forbidden" | "unauthorized";
}

let t: TestGateway;
let identity: Identity;
let origin: string;
const callers: Caller[] = [];
let keyId: string;

function rolesExpectation(kind: "session" | "token", operator: Role | null, inAcme: Role | null) {
  return (action: Action): "allowed" | "forbidden" => {
    const { scope } = PERMISSIONS[action];
    if (scope === "public" || action === "me") return "allowed";
    if (action === "me.manage") return kind === "session" ? "allowed" : "forbidden";
    const held = [operator, scope === "account" ? inAcme : null].filter((r): r is Role => r !== null);
    return allows(action, held) ? "allowed" : "forbidden";
  };
}

async function person(name: string, operator: "operator" | "operator-viewer" | null, role: Role | null) {
  const user = await identity.users.create(
    { email: `${name}@example.com`, name, operatorRole: operator },
    ACTOR,
  );
  if (role) await identity.grants.grant("acme", user.id, "direct", role as never, ACTOR);
  callers.push({
    name,
    async headers(unsafe) {
      const { id, session } = await identity.sessions.start(
        user.id,
        { via: "password" },
        { userAgent: "t", address: "" },
      );
      return { cookie: `tg_session=${id}`, ...(unsafe && { origin, "x-csrf-token": session.csrfToken }) };
    },
    expect: rolesExpectation("session", operator, role),
  });
  return user;
}

function bearer(name: string, token: string, expect: Caller["expect"]) {
  callers.push({ name, headers: async () => ({ authorization: `Bearer ${token}` }), expect });
}

function nobody(name: string, headers: (unsafe: boolean) => Promise<Record<string, string>>) {
  callers.push({
    name,
    headers,
    expect: (action) => (PERMISSIONS[action].scope === "public" ? "allowed" : "unauthorized"),
  });
}

beforeAll(async () => {
  t = await startTestGateway({
    config: { admin: { token: ADMIN }, signIn: { local: { enabled: true } } } as never,
  });
  identity = testIdentity(t.store);
  origin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  await t.store.accountService.create({ id: "other", balance: "100" }, ACTOR);
  keyId = (await t.store.keyService.create({ accountId: "acme", name: "k" }, ACTOR)).record.id;

  await person("operator", "operator", null);
  await person("operator-viewer", "operator-viewer", null);
  const owner = await person("owner", null, "owner");
  await person("member", null, "member");
  await person("viewer", null, "viewer");

  bearer("the admin token", ADMIN, rolesExpectation("token", "operator", null));
  const acmeToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  bearer("acme's dashboard token", acmeToken, rolesExpectation("token", null, "owner"));
  const otherToken = (await t.store.accountService.createToken("other", ACTOR)).token;
  bearer("the dashboard token of another account", otherToken, rolesExpectation("token", null, null));

  // API tokens are made by a signed-in person, at most with their own rights.
  const ownerSession = await identity.credentials.fromSession(
    (await identity.sessions.start(owner.id, { via: "password" }, { userAgent: "", address: "" })).id,
  );
  const memberToken = await identity.tokens.create(ownerSession, {
    name: "ci",
    role: "member",
    accountId: "acme",
  });
  bearer("an API token, member of acme", memberToken.value, rolesExpectation("token", null, "member"));
  const boss = await identity.users.create({ email: "boss@example.com", operatorRole: "operator" }, ACTOR);
  await identity.grants.grant("other", boss.id, "direct", "owner", ACTOR);
  const bossSession = await identity.credentials.fromSession(
    (await identity.sessions.start(boss.id, { via: "password" }, { userAgent: "", address: "" })).id,
  );
  const otherApiToken = await identity.tokens.create(bossSession, {
    name: "other",
    role: "owner",
    accountId: "other",
  });
  bearer(
    "an API token, owner of another account",
    otherApiToken.value,
    rolesExpectation("token", null, null),
  );

  nobody("no credential", async () => ({}));
  const expired = await identity.sessions.start(
    owner.id,
    { via: "password" },
    { userAgent: "", address: "" },
  );
  await t.store.redis.hset(
    t.store.redisKeys.session(sha256(expired.id)),
    "last_seen_at",
    t.clock.now() - 31 * 60_000,
  );
  nobody("an expired session", async (unsafe) => ({
    cookie: `tg_session=${expired.id}`,
    ...(unsafe && { origin, "x-csrf-token": expired.session.csrfToken }),
  }));
  const revoked = await identity.sessions.start(
    owner.id,
    { via: "password" },
    { userAgent: "", address: "" },
  );
  await identity.sessions.revoke(owner.id, sessionHandle(revoked.session.hash));
  nobody("a revoked session", async (unsafe) => ({
    cookie: `tg_session=${revoked.id}`,
    ...(unsafe && { origin, "x-csrf-token": revoked.session.csrfToken }),
  }));
});

afterAll(async () => {
  await t?.close();
});

const PARAMS: Record<string, string> = {
  accountId: "acme",
  userId: "usr_00000000000000000000",
  tokenId: "tok_00000000000000000000",
  sessionId: "0".repeat(64),
  invitationId: "inv_00000000000000000000",
  providerId: "corp",
  webhookId: "0",
};

const document = openApiDocument() as {
  paths: Record<string, Record<string, { operationId: string; "x-action": Action }>>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => op["x-action"] !== undefined)
    .map(([method, op]) => ({ path, method: method.toUpperCase(), ...op })),
);

describe("every operation of the OpenAPI document, for every caller", () => {
  it("covers every route of the table", () => {
    expect(operations.length).toBeGreaterThan(45);
  });

  it("answers as the permission table says", async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "keyId" ? keyId : (PARAMS[name] as string),
      );
      for (const caller of callers) {
        const unsafe = op.method !== "GET";
        const headers = await caller.headers(unsafe);
        const res = await fetch(`${origin}${path}`, {
          method: op.method,
          // As a browser sends them: Origin on every POST, PATCH, PUT and DELETE.
          headers: { ...headers, ...(unsafe && { "content-type": "application/json", origin }) },
          body: unsafe ? "{}" : undefined,
          redirect: "manual",
        });
        const text = await res.text();
        const expected = caller.expect(op["x-action"]);
        const got =
          res.status === 401
            ? "unauthorized"
            : res.status === 403
              ? "forbidden"
              : res.status < 500
                ? "allowed"
                : "failed";
        if (got !== expected)
          wrong.push(
            `${op.method} ${op.path} (${op["x-action"]}) as ${caller.name}: ${res.status} ${text.slice(0, 160)}`,
          );
      }
    }
    expect(wrong).toEqual([]);
  });
});
