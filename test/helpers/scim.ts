// A gateway with SCIM provisioning on, and its SCIM client: the gateway's admin listener with an admin token,
// local sign-in and one identity provider (never reached: SCIM needs only its mapping rules), an account
// "acme", a SCIM token made through the admin API; requests to /scim/v2 as a directory would send them; a
// person signed in with a password and holding an API token, to see what a SCIM change does to them.

import { expect } from "vitest";
import { ACTOR } from "./actor.js";
import { json, startTestGateway, type TestGateway } from "./gateway.js";
import { testIdentity } from "./identity.js";

export const ADMIN_TOKEN = "scim-test-admin-token-0123456789";
export const PASSWORD = "a-password-long-enough-1";

export interface ScimAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface ScimGateway {
  t: TestGateway;
  admin: string;
  token: string;
  tokenId: string;
  /** A SCIM request with the SCIM token (or `token`), a body sent as application/scim+json. */
  scim(method: string, path: string, body?: unknown, token?: string | null): Promise<ScimAnswer>;
  /** An admin API call with a bearer credential. */
  adminCall(method: string, path: string, credential: string, body?: unknown): Promise<ScimAnswer>;
  close(): Promise<void>;
}

/** Rules: `Engineering` (or Entra's object id of it) gives member of acme; `Admins`, operator. */
export const RULES = [
  { groups: ["Engineering", "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"], account: "acme", role: "member" },
  { groups: ["Admins"], operator: "operator" },
];

export async function startScimGateway(): Promise<ScimGateway> {
  const t = await startTestGateway({
    config: {
      admin: { token: ADMIN_TOKEN },
      signIn: {
        local: { enabled: true },
        providers: [
          { id: "corp", name: "Corp", issuer: "http://127.0.0.1:9/", clientId: "gw", rules: RULES },
        ],
        scim: { provider: "corp" },
      },
    } as never,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  const admin = t.gateway.adminUrl as string;
  const adminCall = async (method: string, path: string, credential: string, body?: unknown) => {
    const res = await fetch(`${admin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${credential}`,
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? null : JSON.parse(text), headers: res.headers };
  };
  const made = await adminCall("POST", "/admin/v1/scim/tokens", ADMIN_TOKEN, { name: "directory" });
  expect(made.status).toBe(201);
  const token = made.body.token as string;
  return {
    t,
    admin,
    token,
    tokenId: made.body.id,
    adminCall,
    async scim(method, path, body, credential = token) {
      const res = await fetch(`${admin}/scim/v2${path}`, {
        method,
        headers: {
          ...(credential !== null && { authorization: `Bearer ${credential}` }),
          ...(body !== undefined && { "content-type": "application/scim+json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === "" ? null : JSON.parse(text), headers: res.headers };
    },
    close: () => t.close(),
  };
}

export interface Person {
  cookie: string;
  csrf: string;
  apiToken: string;
}

/** The person with this e-mail signs in with a password. */
export async function signedInPerson(g: ScimGateway, email: string): Promise<Person> {
  const identity = testIdentity(g.t.store);
  const user = await identity.users.find(email);
  await identity.users.setPassword(user.id, PASSWORD, ACTOR);
  const res = await fetch(`${g.admin}/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: g.admin },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const cookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  return { cookie, csrf: (await json(res)).csrf_token as string, apiToken: "" };
}

/** The signed-in person makes an API token of `role` in acme (a role they must hold). */
export async function makeApiToken(g: ScimGateway, person: Person, role = "member"): Promise<void> {
  const made = await fetch(`${g.admin}/admin/v1/me/tokens`, {
    method: "POST",
    headers: {
      cookie: person.cookie,
      origin: g.admin,
      "x-csrf-token": person.csrf,
      "content-type": "application/json",
    },
    body: JSON.stringify({ name: "ci", role, account_id: "acme", days: 30 }),
  });
  expect(made.status).toBe(201);
  person.apiToken = (await json(made)).token;
}

/** What the person's session cookie and API token get on the account's page: [session, token] statuses. */
export async function access(g: ScimGateway, person: Person): Promise<[number, number]> {
  const bySession = await fetch(`${g.admin}/admin/v1/accounts/acme`, { headers: { cookie: person.cookie } });
  const byToken = await fetch(`${g.admin}/admin/v1/accounts/acme`, {
    headers: { authorization: `Bearer ${person.apiToken}` },
  });
  return [bySession.status, byToken.status];
}
