// A person a directory made by SCIM signs in through the identity provider for the first time. With
// signIn.scim.provider naming that provider, the identity team that runs both vouched that the e-mail is
// this person: the sign-in is linked on the directory's word, even when the provider does not mark the
// e-mail verified (Entra ID never does). Through another provider, or with no signIn.scim.provider at all,
// the directory speaks for no provider: linking needs proof (the person's session, or an operator's leave),
// and the refused sign-in links nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { Browser } from "../helpers/browser.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";

const SECRET = "scim-link-client-secret-0123456789";
const ADMIN_TOKEN = "scim-link-admin-token-0123456789";
const RULES = [{ groups: ["Engineering"], account: "acme", role: "member" }];
interface Setup {
  t: TestGateway;
  admin: string;
  scimToken: string;
}

async function startGateway(
  scimProvider: string | undefined,
  idpForPort: (admin: string) => Promise<TestIdentityProvider>,
): Promise<Setup & { provider: TestIdentityProvider }> {
  const port = await freePort();
  const admin = `http://127.0.0.1:${port}`;
  const provider = await idpForPort(admin);
  const t = await startTestGateway({
    env: { CORP_SECRET: SECRET },
    config: {
      admin: { port, token: ADMIN_TOKEN },
      signIn: {
        providers: ["corp", "other"].map((id) =>
          providerSettings(
            provider,
            { id, name: id === "corp" ? "Corp" : "Other", secretEnv: "CORP_SECRET", clientId: id },
            { rules: RULES },
          ),
        ),
        ...(scimProvider && { scim: { provider: scimProvider } }),
      },
    } as never,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme" }, ACTOR);
  const made = await fetch(`${admin}/admin/v1/scim/tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "directory" }),
  });
  expect(made.status).toBe(201);
  return { t, admin, scimToken: (await json(made)).token, provider };
}

/** A provider whose two clients, corp and other, send the browser back to this gateway. */
const providerFor = async (admin: string) =>
  startIdentityProvider({
    clients: ["corp", "other"].map((id) => gatewayClient(admin, SECRET, [id], id)),
  });

async function provision(s: Setup, email: string): Promise<string> {
  const res = await fetch(`${s.admin}/scim/v2/Users`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.scimToken}`, "content-type": "application/scim+json" },
    body: JSON.stringify({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: email,
      name: { givenName: "Pat", familyName: "Directory" },
      emails: [{ value: email, primary: true, type: "work" }],
      active: true,
    }),
  });
  expect(res.status).toBe(201);
  return (await json(res)).id as string;
}

async function signIn(s: Setup, provider: string, login: string) {
  const browser = new Browser();
  const start = await browser.navigate(`${s.admin}/auth/oidc/${provider}/start`);
  await start.res.text();
  const done = await browser.submit(start.hops.at(-1)?.url as string, { login });
  const callback = done.hops.find((hop) => hop.url.startsWith(`${s.admin}/auth/oidc/${provider}/callback`));
  const me = await browser.request(`${s.admin}/admin/v1/me`);
  return { location: callback?.location, me: { status: me.res.status, body: await json(me.res) } };
}

describe("with signIn.scim.provider naming the provider", () => {
  let s: Setup & { provider: TestIdentityProvider };
  beforeAll(async () => {
    s = await startGateway("corp", providerFor);
  });
  afterAll(async () => {
    await s?.t.close();
    await s?.provider.close();
  });

  it("links a person SCIM made at their first sign-in through it, on the directory's word, unverified e-mail and all", async () => {
    const userId = await provision(s, "pat@corp.example");
    s.provider.setPerson("pat-at-idp", {
      email: "pat@corp.example",
      email_verified: false,
      groups: ["Engineering"],
    });
    const from = s.t.logs.length;
    const { location, me } = await signIn(s, "corp", "pat-at-idp");
    expect(location).toBe(`${s.admin}/`);
    expect(me).toMatchObject({ status: 200, body: { user: { id: userId } } });
    expect(await s.t.store.stores.users.bySubject("corp", "pat-at-idp")).toMatchObject({ id: userId });
    expect(s.t.logs.slice(from)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "provider.link", outcome: "by_directory", user: userId, level: 30 }),
        expect.objectContaining({ event: "sign_in.oidc", outcome: "success", user: userId }),
      ]),
    );
    const user = await testIdentity(s.t.store).users.get(userId);
    expect(user?.providers).toEqual(["corp"]);
  });

  it("asks for proof when the same kind of person signs in through a provider SCIM does not speak for", async () => {
    const userId = await provision(s, "quinn@corp.example");
    s.provider.setPerson("quinn-at-idp", {
      email: "quinn@corp.example",
      email_verified: true,
      groups: ["Engineering"],
    });
    const from = s.t.logs.length;
    const { location, me } = await signIn(s, "other", "quinn-at-idp");
    expect(location).toBe(`${s.admin}/#/sign-in?error=provider_link_required&provider=other`);
    expect(me.status).toBe(401);
    expect(await s.t.store.stores.users.bySubject("other", "quinn-at-idp")).toBeNull();
    expect(s.t.logs.slice(from)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: "sign_in.oidc", outcome: "link_required", user: userId, level: 40 }),
      ]),
    );
  });
});

describe("without signIn.scim.provider", () => {
  let s: Setup & { provider: TestIdentityProvider };
  beforeAll(async () => {
    s = await startGateway(undefined, providerFor);
  });
  afterAll(async () => {
    await s?.t.close();
    await s?.provider.close();
  });

  it("links a person SCIM made only with proof: a verified e-mail is not enough, an operator's leave is", async () => {
    const userId = await provision(s, "rita@corp.example");
    s.provider.setPerson("rita-at-idp", {
      email: "rita@corp.example",
      email_verified: true,
      groups: ["Engineering"],
    });
    const refused = await signIn(s, "corp", "rita-at-idp");
    expect(refused.location).toBe(`${s.admin}/#/sign-in?error=provider_link_required&provider=corp`);
    expect(await s.t.store.stores.users.bySubject("corp", "rita-at-idp")).toBeNull();

    const allowed = await fetch(`${s.admin}/admin/v1/users/${userId}/allow-link`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ provider: "corp" }),
    });
    expect(allowed.status).toBe(200);
    const linked = await signIn(s, "corp", "rita-at-idp");
    expect(linked.location).toBe(`${s.admin}/`);
    expect(linked.me.body).toMatchObject({ user: { id: userId } });
  });
});
