// An operator allows a link from the People page, in a real browser (Debian's Chromium) against a real
// gateway and the suite's real OpenID provider: a person who signs in with a password is refused when they
// first come through the provider (no silent link); the operator presses "Allow Corporate login link" on
// their row, reads what it does and sees it in the people's audit log; the person's next sign-in through
// the provider links to them, once; and the row then offers no link for a provider they have. The page
// passes the axe check.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { Browser as HttpBrowser } from "../helpers/browser.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { freePort } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";

const ROOT = join(import.meta.dirname, "../..");
const PASSWORD = "a-password-long-enough-1";
const SECRET = "allow-link-client-secret-0123456789";
const en = MESSAGES.en;

let t: TestGateway;
let idp: TestIdentityProvider;
let browser: Browser;
let admin: string;

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
      admin: { port },
      signIn: {
        local: { enabled: true },
        providers: [providerSettings(idp, { id: "corp", name: "Corporate login", secretEnv: "CORP_SECRET" })],
      },
    } as never,
  });
  const identity = testIdentity(t.store);
  await identity.users.create(
    { email: "root@example.com", name: "Root", password: PASSWORD, operatorRole: "operator" },
    ACTOR,
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await idp?.close();
});

/** Signs in through the provider over HTTP as `login`; where the gateway sent the browser, and who it is. */
async function throughProvider(login: string) {
  const http = new HttpBrowser();
  const start = await http.navigate(`${admin}/auth/oidc/corp/start`);
  await start.res.text();
  const done = await http.submit(start.hops.at(-1)?.url as string, { login });
  const callback = done.hops.find((hop) => hop.url.startsWith(`${admin}/auth/oidc/corp/callback`));
  const me = await http.request(`${admin}/admin/v1/me`);
  return { location: callback?.location, me: { status: me.res.status, body: await json(me.res) } };
}

describe("the people page", () => {
  it("lets an operator allow a person's link to a provider, which their next sign-in through it uses once", async () => {
    const paula = await testIdentity(t.store).users.create(
      { email: "paula@corp.example", name: "Paula Password", password: PASSWORD },
      ACTOR,
    );
    idp.setPerson("paula-at-idp", { email: "paula@corp.example", email_verified: true, name: "Paula" });
    const refused = await throughProvider("paula-at-idp");
    expect(refused.location).toBe(`${admin}/#/sign-in?error=provider_link_required&provider=corp`);

    const { page, problems } = await watchedPage(browser);
    await page.goto(`${admin}/`);
    await page.getByLabel(en["signIn.email"], { exact: true }).fill("root@example.com");
    await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: en["login.submit"] }).click();
    await page.getByTestId("who").waitFor();
    await page.goto(`${admin}/#/people`);
    await page.getByRole("heading", { level: 1, name: en["users.title"] }).waitFor();
    const allow = page.getByRole("button", { name: "Allow Corporate login link for Paula Password" });
    await allow.waitFor();
    expect(await allow.innerText()).toBe("Allow Corporate login link");
    await expectAccessible(page, "people page offering a provider link");
    await allow.click();
    await page
      .getByRole("status")
      .filter({ hasText: "Paula Password's next sign-in with Corporate login links it to them, once, until" })
      .waitFor();
    const audit = page.locator("table.people-audit");
    await audit.locator('td[data-action="user.provider_link"]').first().waitFor();
    expect(await audit.locator('td[data-action="user.provider_link"]').first().innerText()).toBe(
      "Root (password) allowed Paula Password's next sign-in with Corporate login to link to them.",
    );

    const linked = await throughProvider("paula-at-idp");
    expect(linked.location).toBe(`${admin}/`);
    expect(linked.me.body).toMatchObject({ user: { id: paula.id } });
    expect(await t.store.stores.users.bySubject("corp", "paula-at-idp")).toMatchObject({ id: paula.id });

    // Linked now: the row offers no link for a provider the person has.
    await page.getByRole("button", { name: en["common.refresh"] }).click();
    await page
      .locator(`tr[data-user-id="${paula.id}"]`)
      .getByText(`Corporate login, ${en["me.viaPassword"]}`)
      .waitFor();
    expect(
      await page.getByRole("button", { name: "Allow Corporate login link for Paula Password" }).count(),
    ).toBe(0);
    // The leave was for one link: another identity with Paula's e-mail is refused again.
    idp.setPerson("paula-again", { email: "paula@corp.example", email_verified: true, name: "Paula" });
    const again = await throughProvider("paula-again");
    expect(again.location).toBe(`${admin}/#/sign-in?error=provider_link_required&provider=corp`);
    expect(problems).toEqual([]);
  });
});
