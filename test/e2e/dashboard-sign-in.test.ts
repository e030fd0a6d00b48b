// Signing in to the dashboard in a real browser (Debian's Chromium) against a real gateway and a real
// OpenID provider (oidc-provider, test/helpers/oidc-provider.ts): the provider's button runs the whole
// redirect flow and the person lands signed in with exactly the menus of the role the provider's groups map
// to; a group removed at the provider removes the access at the next sign-in; a disabled person is refused
// with a sentence they can act on; the password form refuses a wrong password readably, and a session that
// ends under the person brings the sign-in page and then back to where they were; the legacy token still
// signs in behind its disclosure; and a page of another origin cannot post on the person's session. No way
// around the provider: an invitation to its domain offers only its button, a person who signs in with a
// password links the provider from My account, and a provider sign-in that would take over a password user
// is refused with a sentence saying what to do. Each page passes the axe check; no console error is left
// unexplained.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort, type Listening, listen } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";

const ROOT = join(import.meta.dirname, "../..");
const SHOTS = join(ROOT, ".artifacts/screenshots");
const SECRET = "corp-client-secret-0123456789";
const ADMIN_TOKEN = "admin-token-0123456789";
const PASSWORD = "a-password-long-enough-1";
const en = MESSAGES.en;
const ru = MESSAGES.ru;

let idp: TestIdentityProvider;
let t: TestGateway;
let identity: Identity;
let browser: Browser;
let admin: string;
let elsewhere: Listening;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  const port = await freePort();
  admin = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider({
    clients: [gatewayClient(admin, SECRET, ["corp"])],
  });
  t = await startTestGateway({
    env: { CORP_SECRET: SECRET },
    config: {
      admin: { port, token: ADMIN_TOKEN },
      signIn: {
        local: { enabled: true },
        providers: [
          providerSettings(
            idp,
            { id: "corp", name: "Corporate login", secretEnv: "CORP_SECRET" },
            {
              rules: [
                { groups: ["finance"], operator: "operator-viewer" },
                { groups: ["team-acme"], account: "acme", role: "member" },
              ],
              // Invitations to corp.example are accepted only by signing in with this provider.
              domains: ["corp.example"],
            },
          ),
        ],
      },
    } as never,
  });
  identity = testIdentity(t.store);
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  // A page of another origin (same site: loopback, another port), for the cross-site post.
  elsewhere = await listen((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><html lang=en><title>Elsewhere</title><main><h1>Elsewhere</h1></main></html>");
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await idp?.close();
  await elsewhere?.close();
});

/** A fresh browser (its own cookies, at the provider too) with its page watched for problems. */
async function freshPage(locale = "en-US"): Promise<{ page: Page; problems: string[] }> {
  const watched = await watchedPage(browser, { locale });
  contexts.push(watched.context);
  return { page: watched.page, problems: watched.problems };
}

/** Opens the dashboard, presses the provider's button and signs in at the provider's own page as `login`. */
async function signInWithProvider(page: Page, login: string, path = "/"): Promise<void> {
  await page.goto(`${admin}${path}`);
  await page.getByRole("link", { name: "Sign in with Corporate login" }).click();
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.getByLabel("Login").fill(login);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.origin === admin);
}

/** What the header and the page offer, by the names people read. */
async function offered(page: Page) {
  const count = (name: string) => page.getByRole("link", { name, exact: true }).count();
  return {
    allAccounts: await count(en["nav.accounts"]),
    people: await count(en["nav.people"]),
    myAccount: await count(en["nav.me"]),
    members: await count(en["members.link"]),
    newKey: await count(en["account.newKey"]),
  };
}

describe("signing in with the company's identity provider", () => {
  it("creates the person and shows exactly the menus of the role their groups map to", async () => {
    idp.setPerson("alice", {
      email: "alice@corp.example",
      email_verified: true,
      name: "Alice Liddell",
      groups: ["team-acme"],
    });
    const { page, problems } = await freshPage();
    await page.goto(`${admin}/`);
    await page.getByRole("heading", { level: 1, name: en["login.title"] }).waitFor();
    // The ways in load after the heading: the provider's button, the password form, the legacy token
    // behind its disclosure (counting before they arrive would count nothing).
    await page.getByRole("link", { name: "Sign in with Corporate login" }).waitFor();
    expect(await page.getByLabel(en["signIn.email"], { exact: true }).count()).toBe(1);
    expect(await page.getByLabel(en["login.token"]).isVisible()).toBe(false);
    await page.screenshot({ path: join(SHOTS, "sign-in.png"), fullPage: true });
    await expectAccessible(page, "sign-in page");

    await signInWithProvider(page, "alice");
    // A member of acme, by the group: the account's page, keys to make, no members, no operator's menus.
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();
    expect(await page.getByTestId("who").innerText()).toContain("Alice Liddell");
    // The account's own actions render once its data is in, after the heading (counted before, a run on a
    // loaded machine found no "new key" yet): counted once the one this role must have is there.
    await page.getByRole("link", { name: en["account.newKey"], exact: true }).waitFor();
    expect(await offered(page)).toEqual({ allAccounts: 0, people: 0, myAccount: 1, members: 0, newKey: 1 });
    await expectAccessible(page, "account page of a member");
    const user = await identity.users.find("alice@corp.example");
    expect(user.providers).toEqual(["corp"]);
    expect(problems).toEqual([]);
  });

  it("gives an operator-viewer every account to read, and no form or button that changes one", async () => {
    idp.setPerson("bob", {
      email: "bob@corp.example",
      email_verified: true,
      name: "Bob",
      groups: ["finance"],
    });
    const { page, problems } = await freshPage();
    await signInWithProvider(page, "bob");
    await page.getByRole("heading", { level: 1, name: en["op.title"] }).waitFor();
    expect(await offered(page)).toMatchObject({ allAccounts: 1, people: 1, myAccount: 1 });
    expect(await page.getByRole("heading", { name: en["op.topup"] }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: en["op.create"] }).count()).toBe(0);
    await page.locator("table.accounts").getByRole("link", { name: "acme", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();
    await page.getByRole("link", { name: en["members.link"], exact: true }).waitFor(); // as above
    expect(await offered(page)).toMatchObject({ members: 1, newKey: 0 });
    await page.getByTestId("alerts-summary").waitFor();
    expect(await page.getByRole("button", { name: en["alerts.webhook.set"] }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("takes the access away at the next sign-in once the group is removed at the provider", async () => {
    idp.setPerson("alice", {
      email: "alice@corp.example",
      email_verified: true,
      name: "Alice Liddell",
      groups: [],
    });
    const { page, problems } = await freshPage();
    await signInWithProvider(page, "alice");
    await page.getByRole("heading", { level: 1, name: en["nav.noAccess"] }).waitFor();
    await expectAccessible(page, "no account yet");
    await page.goto(`${admin}/#/accounts/acme`);
    await page.getByRole("heading", { level: 1, name: en["nav.notAllowed"] }).waitFor();
    expect(problems).toEqual([]);
  });

  it("refuses a disabled person with a sentence saying what to do, in their language", async () => {
    const alice = await identity.users.find("alice@corp.example");
    await identity.users.disable(alice.id, ACTOR);
    const { page, problems } = await freshPage("ru-RU");
    await page.goto(`${admin}/`);
    await page.getByRole("link", { name: "Войти через Corporate login" }).click();
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.getByLabel("Login").fill("alice");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.origin === admin && url.hash.startsWith("#/sign-in"));
    expect(new URL(page.url()).hash).toBe("#/sign-in?error=user_disabled&provider=corp");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe(ru["signIn.problem.disabled"]);
    await expectAccessible(page, "sign-in page with a provider's refusal");
    expect(problems).toEqual([]);
  });
});

describe("the password form and the session", () => {
  it("refuses a wrong password readably, and after a session ends goes back to the same page", async () => {
    const olga = await identity.users.create({ email: "olga@example.com", name: "Olga" }, ACTOR);
    await identity.users.setPassword(olga.id, PASSWORD, ACTOR);
    await identity.grants.grant("acme", olga.id, "direct", "owner", ACTOR);
    const { page, problems } = await freshPage();
    await page.goto(`${admin}/#/accounts/acme/members`);
    await page.getByLabel(en["signIn.email"], { exact: true }).fill("olga@example.com");
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill("not the password");
    await page.getByRole("button", { name: en["login.submit"] }).click();
    await expect.poll(() => page.getByRole("alert").innerText()).toBe(en["signIn.problem.wrongPassword"]);
    await expectAccessible(page, "sign-in page with a wrong password");
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill(PASSWORD);
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).press("Enter");
    // Straight to the page asked for.
    await page.getByRole("heading", { level: 1, name: "Members of account acme" }).waitFor();

    // The page's own load finishes first: revoked while it runs, that load would end the session instead of
    // the refresh below.
    await page.locator("table.members").getByText("olga@example.com").waitFor();
    await page.locator('button[aria-busy="false"]', { hasText: en["common.refresh"] }).waitFor();
    // The session ends under the person (revoked elsewhere): the next call brings the sign-in page, in place.
    await identity.sessions.revokeAll(olga.id);
    await page.getByRole("button", { name: en["common.refresh"], exact: true }).click();
    await page.getByRole("status").filter({ hasText: en["login.expired"] }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/accounts/acme/members");
    await page.getByLabel(en["signIn.email"], { exact: true }).fill("olga@example.com");
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: en["login.submit"] }).click();
    await page.getByRole("heading", { level: 1, name: "Members of account acme" }).waitFor();
    // The browser logged the refused sign-in and the refresh's two refused calls (members, invitations) as
    // 401s; nothing else.
    expect(problems.filter((line) => !/status of 401/.test(line))).toEqual([]);
    expect(problems.filter((line) => /status of 401/.test(line)).length).toBe(3);

    // A page of another origin posts on the person's session: the cookie goes along (same site), the
    // gateway refuses it for its origin and missing CSRF token, and nothing is created.
    await page.goto(`${elsewhere.url}/`);
    await page.evaluate(`fetch(${JSON.stringify(`${admin}/admin/v1/accounts/acme/keys`)}, {
      method: "POST", mode: "no-cors", credentials: "include",
      headers: { "content-type": "text/plain" }, body: JSON.stringify({ name: "forged-by-fetch" }) })
      .catch(() => "the browser hides the opaque answer")`);
    await page.evaluate(`(() => {
      const form = document.createElement("form");
      form.method = "post";
      form.enctype = "text/plain";
      form.action = ${JSON.stringify(`${admin}/admin/v1/accounts/acme/keys`)};
      const field = document.createElement("input");
      field.name = '{"name":"forged-by-form","x":"';
      field.value = '"}';
      form.append(field);
      document.body.append(form);
      form.submit();
    })()`);
    await page.waitForURL((url) => url.origin === admin);
    // csrf_refused, not admin_unauthorized: the session cookie was sent, and refused for where it came from.
    expect(JSON.parse(await page.locator("body").innerText()).error.code).toBe("csrf_refused");
    expect((await t.store.keys.list("acme")).map((k) => k.name)).toEqual([]);
  });

  it("still signs in with the legacy admin token, behind its disclosure", async () => {
    const { page, problems } = await freshPage();
    await page.goto(`${admin}/`);
    await page.getByText(en["signIn.withToken"]).click();
    await page.getByLabel(en["login.token"]).fill(ADMIN_TOKEN);
    await page.getByLabel(en["login.token"]).press("Enter");
    await page.getByRole("heading", { level: 1, name: en["op.title"] }).waitFor();
    expect(await page.getByTestId("who").innerText()).toContain(en["role.admin"]);
    expect(await offered(page)).toMatchObject({ allAccounts: 1, people: 1, myAccount: 0 });
    expect(problems).toEqual([]);
  });
});

describe("no way around the identity provider", () => {
  it("offers only the provider's button on an invitation to its domain, and accepts it through the provider", async () => {
    idp.setPerson("ivy", { email: "ivy@corp.example", email_verified: true, name: "Ivy", groups: [] });
    const { url } = await identity.invitations.create(
      "acme",
      { email: "ivy@corp.example", role: "viewer" },
      ACTOR,
      admin,
    );
    const { page, problems } = await freshPage();
    await page.goto(url);
    const note = page.getByTestId("through-provider");
    await note.waitFor();
    expect(await note.innerText()).toBe(
      en["invite.throughProvider"].replaceAll("{provider}", "Corporate login"),
    );
    expect(await page.getByLabel(en["invite.name"]).count()).toBe(0);
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    await expectAccessible(page, "invitation to a provider's domain");
    await page.getByRole("button", { name: "Sign in with Corporate login" }).click();
    await page.waitForURL((at) => at.origin === idp.issuer);
    await page.getByLabel("Login").fill("ivy");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((at) => at.origin === admin && at.hash === "#/invite");
    await page.getByRole("button", { name: en["invite.accept"] }).click();
    await page.waitForURL((at) => at.hash === "#/accounts/acme");
    const ivy = await identity.users.find("ivy@corp.example");
    expect(await t.store.stores.users.accountGrants("acme", ivy.id)).toEqual({ direct: "viewer" });
    expect(problems).toEqual([]);
  });

  it("refuses a provider sign-in onto a password user with what to do, then links it from My account", async () => {
    const pam = await identity.users.create(
      { email: "pam@corp.example", name: "Pam", password: PASSWORD },
      ACTOR,
    );
    idp.setPerson("pam", {
      email: "pam@corp.example",
      email_verified: true,
      name: "Pam",
      groups: ["team-acme"],
    });
    const { page, problems } = await freshPage();
    await signInWithProvider(page, "pam");
    await page.waitForURL((at) => at.hash.startsWith("#/sign-in"));
    expect(new URL(page.url()).hash).toBe("#/sign-in?error=provider_link_required&provider=corp");
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe(
      en["signIn.problem.linkRequired"].replaceAll("{provider}", "Corporate login"),
    );
    await expectAccessible(page, "sign-in page refusing a link without proof");
    expect(await t.store.stores.users.bySubject("corp", "pam")).toBeNull();

    // Pam signs in with her password, then links the provider from My account.
    await page.getByLabel(en["signIn.email"], { exact: true }).fill("pam@corp.example");
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill(PASSWORD);
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).press("Enter");
    await page.getByTestId("who").waitFor();
    await page.goto(`${admin}/#/me`);
    const providers = page.getByTestId("my-providers");
    await providers.waitFor();
    await expectAccessible(page, "my account with a provider to link");
    await page.getByRole("button", { name: "Link Corporate login" }).click();
    // Signed in at the provider a moment ago, the browser may pass it without its login page.
    await page.waitForURL((at) => at.origin === idp.issuer || at.hash === "#/me");
    if (new URL(page.url()).origin === idp.issuer) {
      await page.getByLabel("Login").fill("pam");
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    await page.waitForURL((at) => at.origin === admin && at.hash === "#/me");
    await page.getByTestId("my-providers").getByText(en["me.providers.linked"]).waitFor();
    expect((await t.store.stores.users.bySubject("corp", "pam"))?.id).toBe(pam.id);
    expect(problems).toEqual([]);
  });
});
