// A refused change writes nothing, through the admin API over real HTTP: for every route that creates
// something — accounts, keys, invitations and their acceptance, API tokens, members' roles, webhooks,
// passwords set by link or changed — a request refused for a reason only the server can judge (a weak or
// common password, an e-mail taken, an unknown account, a role the caller does not hold, a balance that
// cannot pay) leaves every key under the test's prefix exactly as it was, value for value.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";
import { redisSnapshot } from "../helpers/redis-snapshot.js";

const PASSWORD = "a-password-long-enough-1";
const ADMIN_TOKEN = "refused-writes-admin-token-0123456789";
let t: TestGateway;
let identity: Identity;
let admin: string;
let owner: { cookie: string; csrf: string };
let inviteToken: string;
let passwordToken: string;

beforeAll(async () => {
  t = await startTestGateway({
    config: { admin: { token: ADMIN_TOKEN }, signIn: { local: { enabled: true } } } as never,
  });
  identity = testIdentity(t.store);
  admin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  await t.store.accountService.create({ id: "broke", name: "Broke" }, ACTOR);
  const olga = await identity.users.create(
    {
      email: "olga@example.com",
      name: "Olga",
      password: PASSWORD,
      account: { accountId: "acme", role: "owner" },
    },
    ACTOR,
  );
  await identity.users.create({ email: "taken@example.com", name: "Taken" }, ACTOR);
  const res = await fetch(`${admin}/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: admin },
    body: JSON.stringify({ email: "olga@example.com", password: PASSWORD }),
  });
  owner = {
    cookie: (res.headers.getSetCookie()[0] ?? "").split(";")[0] as string,
    csrf: (await json(res)).csrf_token,
  };
  const invited = await identity.invitations.create(
    "acme",
    { email: "newcomer@example.com", role: "member" },
    ACTOR,
    admin,
  );
  inviteToken = invited.url.split("/#/invite/")[1] as string;
  passwordToken = (await identity.passwords.passwordLink(olga.id, admin)).split(
    "/#/set-password/",
  )[1] as string;
});
afterAll(async () => {
  await t?.close();
});

type Caller = "admin" | "owner" | "nobody";

async function call(caller: Caller, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { origin: admin };
  if (caller === "admin") headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (caller === "owner") Object.assign(headers, { cookie: owner.cookie, "x-csrf-token": owner.csrf });
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${admin}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await json(res) };
}

describe("a refused creation through the admin API", () => {
  it.each<[string, Caller, string, string, unknown, number, string]>([
    [
      "an account whose id is taken",
      "admin",
      "POST",
      "/admin/v1/accounts",
      { id: "acme" },
      409,
      "account_exists",
    ],
    [
      "an account with a negative balance",
      "admin",
      "POST",
      "/admin/v1/accounts",
      { id: "new", balance: "-5" },
      400,
      "invalid_request",
    ],
    [
      "a key on an account that cannot pay",
      "admin",
      "POST",
      "/admin/v1/accounts/broke/keys",
      { name: "k" },
      402,
      "insufficient_balance",
    ],
    [
      "a key on an account that does not exist",
      "admin",
      "POST",
      "/admin/v1/accounts/ghost/keys",
      { name: "k" },
      404,
      "account_not_found",
    ],
    [
      "a key with a malformed budget",
      "owner",
      "POST",
      "/admin/v1/accounts/acme/keys",
      { name: "k", budget: "lots" },
      400,
      "invalid_request",
    ],
    [
      "an invitation to a malformed e-mail",
      "owner",
      "POST",
      "/admin/v1/accounts/acme/invitations",
      { email: "nobody", role: "member" },
      400,
      "invalid_request",
    ],
    [
      "an invitation into an account that does not exist",
      "admin",
      "POST",
      "/admin/v1/accounts/ghost/invitations",
      { email: "a@example.com", role: "member" },
      404,
      "account_not_found",
    ],
    [
      "an invitation accepted with a common password",
      "nobody",
      "POST",
      "/auth/invitations/accept",
      {
        get token() {
          return inviteToken;
        },
        password: "qwerty123456",
      },
      400,
      "weak_password",
    ],
    [
      "an invitation accepted with a password too short",
      "nobody",
      "POST",
      "/auth/invitations/accept",
      {
        get token() {
          return inviteToken;
        },
        password: "short",
      },
      400,
      "weak_password",
    ],
    [
      "an API token with a role its maker does not hold",
      "owner",
      "POST",
      "/admin/v1/me/tokens",
      { name: "ci", role: "operator" },
      403,
      "forbidden",
    ],
    [
      "an API token for an account its maker is not in",
      "owner",
      "POST",
      "/admin/v1/me/tokens",
      { name: "ci", role: "viewer", account_id: "broke" },
      403,
      "forbidden",
    ],
    [
      "an API token living longer than allowed",
      "owner",
      "POST",
      "/admin/v1/me/tokens",
      { name: "ci", role: "owner", account_id: "acme", days: 100_000 },
      400,
      "invalid_request",
    ],
    [
      "a role for someone who is not a member",
      "owner",
      "PATCH",
      "/admin/v1/accounts/acme/members/usr_00000000000000000000",
      { role: "viewer" },
      404,
      "member_not_found",
    ],
    [
      "a webhook to a URL that is not one",
      "owner",
      "PUT",
      "/admin/v1/accounts/acme/webhook",
      { url: "not a url" },
      400,
      "invalid_request",
    ],
    [
      "a password set by link that is too common",
      "nobody",
      "POST",
      "/auth/password/set",
      {
        get token() {
          return passwordToken;
        },
        password: "password1234",
      },
      400,
      "weak_password",
    ],
    [
      "a password change to one too short",
      "owner",
      "POST",
      "/admin/v1/me/password",
      { current_password: PASSWORD, new_password: "short" },
      400,
      "weak_password",
    ],
  ])(
    "refuses %s and leaves Redis exactly as it was",
    async (_what, caller, method, path, body, status, code) => {
      const before = await redisSnapshot(t.store.redis, t.store.prefix);
      const refused = await call(
        caller,
        method,
        path,
        body === undefined ? undefined : JSON.parse(JSON.stringify(body)),
      );
      expect(refused.body.error?.code).toBe(code);
      expect(refused.status).toBe(status);
      expect(await redisSnapshot(t.store.redis, t.store.prefix)).toEqual(before);
    },
  );

  it("still accepts the invitation and the link afterwards: a refusal used neither up", async () => {
    const accepted = await call("nobody", "POST", "/auth/invitations/accept", {
      token: inviteToken,
      password: "another-password-long-enough",
    });
    expect(accepted).toMatchObject({ status: 200, body: { created: true, role: "member" } });
    const set = await call("nobody", "POST", "/auth/password/set", {
      token: passwordToken,
      password: "another-password-long-enough",
    });
    expect(set.status).toBe(200);
  });
});
