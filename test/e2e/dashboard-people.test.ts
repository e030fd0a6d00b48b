// An account's people in a real browser (Debian's Chromium) against a real gateway with local sign-in: an
// owner invites a person and sees the one-time link, changes a member's role and removes one after a
// confirmation (from the keyboard); the invited person opens the link in another browser, is told why a
// password is refused, and is signed in as a member; in "my account" they end their other session — whose
// browser then meets the sign-in page — and create and revoke an API token; a viewer is never offered a
// change; an operator lifts the sign-in lock of a person locked out by failed passwords, and reads it, the
// failures and the lockout in the people's audit log. Each page passes the axe check and fits a 1 280-pixel
// window in both languages.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";

const ROOT = join(import.meta.dirname, "../..");
const SHOTS = join(ROOT, ".artifacts/screenshots");
const PASSWORD = "a-password-long-enough-1";
const en = MESSAGES.en;
const ru = MESSAGES.ru;

let t: TestGateway;
let identity: Identity;
let browser: Browser;
let admin: string;
let owner: { page: Page; problems: string[] };
let invitationUrl: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  t = await startTestGateway({ config: { signIn: { local: { enabled: true } } } as never });
  identity = testIdentity(t.store);
  admin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  for (const [email, name, role] of [
    ["olga@example.com", "Olga Owner", "owner"],
    ["vera@example.com", "Vera Viewer", "viewer"],
    ["max@example.com", "Max Member", "member"],
  ] as const) {
    const user = await identity.users.create({ email, name }, ACTOR);
    await identity.users.setPassword(user.id, PASSWORD, ACTOR);
    await identity.grants.grant("acme", user.id, "direct", role, ACTOR);
  }
  await t.store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
  browser = await launchChromium();
  owner = await signedIn("olga@example.com");
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A new browser signed in with the password form; its page watched for problems. */
async function signedIn(email: string, password = PASSWORD, userAgent?: string) {
  const { page, problems } = await watchedPage(browser, userAgent ? { userAgent } : {});
  await page.goto(`${admin}/`);
  await page.getByLabel(en["signIn.email"], { exact: true }).fill(email);
  await page.getByLabel(en["signIn.passwordField"], { exact: true }).fill(password);
  await page.getByRole("button", { name: en["login.submit"] }).click();
  await page.getByTestId("who").waitFor();
  return { page, problems };
}

/** The page is no wider than a 1 280-pixel window, in English and in Russian. */
async function fitsIn1280(page: Page, heading: { en: string; ru: string }): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const lang of ["ru", "en"] as const) {
    await page.getByLabel(MESSAGES[lang === "ru" ? "en" : "ru"]["nav.language"]).selectOption(lang);
    await page.getByRole("heading", { level: 1, name: heading[lang] }).waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth"), lang).toBeLessThanOrEqual(
      1280,
    );
  }
}

describe("an account's members page", () => {
  it("lets an owner invite a person, change a member's role and remove one from the keyboard", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: en["members.link"] }).click();
    await page.getByRole("heading", { level: 1, name: "Members of account acme" }).waitFor();
    const rows = page.locator("table.members tbody tr");
    await expect.poll(() => rows.count()).toBe(3);

    await page.getByLabel(en["invite.form.email"], { exact: true }).fill("Newcomer@Example.com");
    await page.getByLabel(en["invite.form.role"], { exact: true }).selectOption("member");
    await page.getByRole("button", { name: en["invite.form.submit"] }).click();
    const link = page.getByTestId("invitation-link");
    await link.waitFor();
    invitationUrl = await link.getByLabel(en["invite.form.link"]).inputValue();
    expect(invitationUrl).toMatch(new RegExp(`^${admin}/#/invite/[\\w-]+$`));
    expect(await page.locator("table.invitations").innerText()).toContain("newcomer@example.com");
    await page.screenshot({ path: join(SHOTS, "members.png"), fullPage: true });
    await expectAccessible(page, "members page with a new invitation link");
    await page.getByRole("button", { name: en["invite.form.done"] }).click();

    // Vera, a viewer, becomes a member.
    await page.getByLabel("Role of Vera Viewer").selectOption("member");
    await page.getByRole("status").filter({ hasText: "Vera Viewer is now member." }).waitFor();
    expect(
      (await identity.grants.member("acme", (await identity.users.find("vera@example.com")).id)).role,
    ).toBe("member");

    // Max is removed, from the keyboard: the dialog, Escape, then again and confirmed.
    const remove = page.getByRole("button", { name: "Remove Max Member" });
    await remove.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Remove Max Member from account acme?" });
    await dialog.waitFor();
    await expectAccessible(page, "the remove dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')")).toBe(
      "Remove Max Member",
    );
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Remove Max Member" }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await fitsIn1280(page, { en: "Members of account acme", ru: "Участники аккаунта acme" });
    await expectAccessible(page, "members page in English");
    expect(owner.problems).toEqual([]);
  });
});

describe("an invitation and my account", () => {
  it("explains refused passwords, then signs the invited person in as a member", async () => {
    const { page, problems } = await watchedPage(browser, { locale: "ru-RU" });
    await page.goto(invitationUrl);
    await page.getByRole("heading", { level: 1, name: ru["invite.title"] }).waitFor();
    // The token leaves the address bar at once.
    await expect.poll(() => new URL(page.url()).hash).toBe("#/invite");
    expect(await page.getByTestId("invitation").innerText()).toContain("newcomer@example.com");
    await page.getByLabel(ru["invite.name"], { exact: true }).fill("Nina Newcomer");
    await page.getByLabel(ru["password.new"], { exact: true }).fill("short");
    await page.getByLabel(ru["password.repeat"], { exact: true }).fill("short");
    await page.getByRole("button", { name: ru["invite.acceptNew"] }).click();
    await page.getByText(ru["password.tooShort"]).waitFor();
    // Long enough, but among the most common passwords: only the server knows, and the page says why.
    await page.getByLabel(ru["password.new"], { exact: true }).fill("qwerty123456");
    await page.getByLabel(ru["password.repeat"], { exact: true }).fill("qwerty123456");
    await page.getByRole("button", { name: ru["invite.acceptNew"] }).click();
    await page.getByText(ru["password.tooCommon"]).waitFor();
    await page.screenshot({ path: join(SHOTS, "invitation.png"), fullPage: true });
    await expectAccessible(page, "invitation page with a refused password");
    await page.getByLabel(ru["password.new"], { exact: true }).fill(PASSWORD);
    await page.getByLabel(ru["password.repeat"], { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: ru["invite.acceptNew"] }).click();
    await page.getByRole("heading", { level: 1, name: "Аккаунт acme" }).waitFor();
    expect(await page.getByTestId("who").innerText()).toContain("Nina Newcomer");
    // A member: keys to make, no members page. The heading is there before the account's data: wait for it.
    await page.getByRole("link", { name: ru["account.newKey"] }).waitFor();
    expect(await page.getByRole("link", { name: ru["account.newKey"] }).count()).toBe(1);
    expect(await page.getByRole("link", { name: ru["members.link"] }).count()).toBe(0);
    // The server refused the common password (400): logged by the browser, nothing else.
    expect(problems.filter((line) => !/status of 400/.test(line))).toEqual([]);
  });

  it("ends another session of mine, whose browser then meets the sign-in page, and makes and revokes a token", async () => {
    const phone = await signedIn(
      "newcomer@example.com",
      PASSWORD,
      "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36",
    );
    const { page, problems } = await signedIn("newcomer@example.com");
    await page.getByRole("link", { name: en["nav.me"] }).click();
    await page.getByRole("heading", { level: 1, name: en["me.title"] }).waitFor();
    const sessions = page.locator("table.sessions tbody tr");
    await expect.poll(() => sessions.count()).toBe(3);
    expect(await page.locator('table.sessions tr[data-current="true"]').innerText()).toContain(
      en["me.sessions.current"],
    );
    await page.getByRole("button", { name: "End the session of Chrome on Android" }).click();
    await expect.poll(() => sessions.count()).toBe(2);
    // The phone's next call is refused: the sign-in page, saying why (its page's own load long finished, so
    // the refresh is that call).
    await phone.page.locator('button[aria-busy="false"]', { hasText: en["common.refresh"] }).waitFor();
    await phone.page.getByRole("button", { name: en["common.refresh"], exact: true }).click();
    await phone.page.getByRole("status").filter({ hasText: en["login.expired"] }).waitFor();

    await page.getByLabel(en["keys.col.name"], { exact: true }).fill("ci-deploy");
    await page.getByLabel(en["me.tokens.col.role"], { exact: true }).selectOption("viewer@acme");
    await page.getByRole("button", { name: en["me.tokens.create"] }).click();
    const created = page.getByTestId("created-token");
    await created.waitFor();
    const value = await created.getByLabel(en["me.tokens.value"]).inputValue();
    expect(value).toMatch(/^sk-tunnel-admin-[0-9a-f]{64}$/);
    const asToken = await fetch(`${admin}/admin/v1/accounts/acme/keys`, {
      headers: { authorization: `Bearer ${value}` },
    });
    expect(asToken.status).toBe(200);
    await page.screenshot({ path: join(SHOTS, "my-account.png"), fullPage: true });
    await expectAccessible(page, "my account with a new token");
    await page.getByRole("button", { name: en["rotate.dismiss"] }).click();
    await page.getByRole("button", { name: "Revoke the token ci-deploy" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke the token ci-deploy" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: en["me.tokens.revoked"].replace("{name}", "ci-deploy") })
      .waitFor();
    const revoked = await fetch(`${admin}/admin/v1/accounts/acme/keys`, {
      headers: { authorization: `Bearer ${value}` },
    });
    expect(revoked.status).toBe(401);
    await fitsIn1280(page, { en: en["me.title"], ru: ru["me.title"] });
    expect(problems).toEqual([]);
    expect(phone.problems.filter((line) => !/status of 401/.test(line))).toEqual([]);
  });
});

describe("a viewer", () => {
  it("is never offered a change: no key to make, no key action, no members, no alerts", async () => {
    const max = await identity.users.find("max@example.com");
    await identity.grants.grant("acme", max.id, "direct", "viewer", ACTOR);
    const { page, problems } = await signedIn("max@example.com");
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();
    await page.locator("table.keys tbody tr").first().waitFor();
    expect(await page.getByRole("link", { name: en["account.newKey"] }).count()).toBe(0);
    expect(await page.getByRole("link", { name: en["members.link"] }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: en["alerts.title"] }).count()).toBe(0);
    await page.getByRole("button", { name: "Actions for the key prod" }).click();
    expect(await page.getByRole("menuitem").allInnerTexts()).toEqual([en["keys.open"]]);
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "prod" }).first().click();
    await page.getByRole("heading", { level: 1, name: "Key “prod”" }).waitFor();
    for (const name of [en["key.rotate"], en["key.disable"], en["keys.revoke"], en["keyAlerts.save"]])
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    expect(await page.getByRole("heading", { name: en["key.edit"] }).count()).toBe(0);
    await page.goto(`${admin}/#/accounts/acme/new-key`);
    await page.getByRole("heading", { level: 1, name: en["nav.notAllowed"] }).waitFor();
    await expectAccessible(page, "a page the viewer may not see");
    expect(problems).toEqual([]);
  });
});

describe("the people page", () => {
  it("lets an operator lift a person's sign-in lock, and shows the failures, the lockout and the unlock", async () => {
    await identity.users.create(
      { email: "root@example.com", name: "Root", password: PASSWORD, operatorRole: "operator" },
      ACTOR,
    );
    const locked = await identity.users.create(
      { email: "lena@example.com", name: "Lena Locked", password: PASSWORD },
      ACTOR,
    );
    for (let i = 0; i < 10; i++)
      await identity.passwords.signIn("lena@example.com", `wrong-password-${i}`, "192.0.2.5").catch(() => {});
    await expect(identity.passwords.signIn("lena@example.com", PASSWORD, "192.0.2.6")).rejects.toMatchObject({
      code: "too_many_attempts",
    });
    const { page, problems } = await signedIn("root@example.com");
    await page.goto(`${admin}/#/people`);
    await page.getByRole("heading", { level: 1, name: en["users.title"] }).waitFor();
    const audit = page.locator("table.people-audit");
    await audit.locator('td[data-action="user.lockout"]').first().waitFor();
    expect(await audit.locator('td[data-action="user.lockout"]').first().innerText()).toBe(
      "someone not signed in tried too many wrong passwords: signing in as Lena Locked is locked for 60 s.",
    );
    expect(await audit.locator('td[data-action="user.sign_in_failed"]').first().innerText()).toBe(
      "someone not signed in failed to sign in as Lena Locked from 192.0.2.5: wrong password.",
    );
    await expectAccessible(page, "people page with a locked-out person");
    await page.getByRole("button", { name: "Unlock Lena Locked" }).click();
    await page.getByRole("status").filter({ hasText: "Lena Locked can sign in again" }).waitFor();
    await audit.locator('td[data-action="user.unlock"]').first().waitFor();
    expect(await audit.locator('td[data-action="user.unlock"]').first().innerText()).toBe(
      "Root (password) lifted the sign-in lock of Lena Locked.",
    );
    expect((await identity.passwords.signIn("lena@example.com", PASSWORD, "192.0.2.7")).id).toBe(locked.id);
    await fitsIn1280(page, { en: en["users.title"], ru: ru["users.title"] });
    expect(problems).toEqual([]);
  });
});
