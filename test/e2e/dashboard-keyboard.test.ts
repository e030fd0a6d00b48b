// The dashboard with the keyboard alone, in a real browser against a real gateway: the skip button, signing
// in, sorting the keys, opening a key's page, opening the revoke dialog and leaving it with Escape (the focus
// back on the button that opened it), creating a key through the form and revoking it — Tab, Shift+Tab,
// Enter, Space and Escape only, no mouse. Whatever has the focus on the way must show it.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { ACTOR } from "../helpers/actor.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";

const ROOT = join(import.meta.dirname, "../..");
const en = MESSAGES.en;
/** Enough presses to cross the longest view; a control not reached by then is not reachable. */
const MAX_TABS = 60;

let t: TestGateway;
let browser: Browser;
let page: Page;
let accountToken: string;
let keyId: string;
let problems: string[] = [];

// Scripts passed to the page are strings: this file is type-checked without the DOM library.
const DESCRIBE_FOCUS = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "nothing";
  const name = el.getAttribute("aria-label") ?? el.labels?.[0]?.innerText ?? el.innerText ?? "";
  return el.tagName.toLowerCase() + " " + JSON.stringify(name.trim().replace(/\\s+/g, " ").slice(0, 60));
})()`;
const FOCUS_RING = `(() => {
  const style = getComputedStyle(document.activeElement);
  return { outline: style.outlineStyle, width: style.outlineWidth, shadow: style.boxShadow };
})()`;

const hasFocus = (target: Locator) =>
  target.evaluate((el) => el === (globalThis as any).document.activeElement);

/** Presses Tab (or Shift+Tab) until `target` has the focus; fails listing where the focus went instead. */
async function tabTo(target: Locator, backwards = false): Promise<void> {
  const visited: string[] = [];
  for (let presses = 0; presses <= MAX_TABS; presses++) {
    if (await hasFocus(target)) return;
    visited.push(await page.evaluate<string>(DESCRIBE_FOCUS));
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
  }
  throw new Error(`${target} never got the focus; it went to:\n  ${visited.join("\n  ")}`);
}

/** The focused control shows it: an outline at least 2px wide, or a box shadow. */
async function expectFocusRing(): Promise<void> {
  const ring = await page.evaluate<{ outline: string; width: string; shadow: string }>(FOCUS_RING);
  const outlined = ring.outline !== "none" && Number.parseFloat(ring.width) >= 2;
  expect(outlined || ring.shadow !== "none", `no focus ring: ${JSON.stringify(ring)}`).toBe(true);
}

const heading = (name: string) => page.getByRole("heading", { level: 1, name });

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  t = await startTestGateway({ config: { admin: { token: "admin-token-0123456789" } } });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  keyId = (await t.newKey({ accountId: "acme", budget: "10" })).id;

  browser = await launchChromium();
  ({ page, problems } = await watchedPage(browser, { clipboardOrigin: t.gateway.adminUrl as string }));
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("the dashboard with the keyboard alone", () => {
  it("offers a visible skip button first, which takes the focus to the content, and signs in with Enter", async () => {
    await page.goto(`${t.gateway.adminUrl}/`);
    await heading(en["login.title"]).waitFor();
    // The view's heading has the focus; everything before it is reached backwards.
    const skip = page.getByRole("button", { name: en["nav.skip"] });
    await tabTo(skip, true);
    expect((await skip.boundingBox())?.y).toBeGreaterThanOrEqual(0);
    await expectFocusRing();
    await page.keyboard.press("Enter");
    expect(await hasFocus(page.getByRole("main"))).toBe(true);

    await tabTo(page.getByLabel(en["login.token"]));
    await page.keyboard.type(accountToken);
    await page.keyboard.press("Enter");
    await heading("Account acme").waitFor();
    await expect.poll(() => hasFocus(heading("Account acme"))).toBe(true); // focus follows the render
  });

  it("sorts the keys with Space and opens a key's page with Enter", async () => {
    const sortByName = page.getByRole("button", { name: en["keys.col.name"] });
    await tabTo(sortByName);
    await expectFocusRing();
    await page.keyboard.press("Space");
    const nameHeader = page.locator("th", { has: sortByName });
    expect(await nameHeader.getAttribute("aria-sort")).toBe("ascending");

    const keyLink = page.locator(`tr[data-key-id="${keyId}"]`).getByRole("link", { name: "test key" });
    await tabTo(keyLink);
    await expectFocusRing();
    await page.keyboard.press("Enter");
    await heading("Key “test key”").waitFor();
    await expect.poll(() => hasFocus(heading("Key “test key”"))).toBe(true);
  });

  it("leaves the revoke dialog with Escape, the focus back on the button that opened it", async () => {
    const revoke = page.locator(".title-row").getByRole("button", { name: en["keys.revoke"], exact: true });
    await tabTo(revoke);
    await expectFocusRing();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    // The dialog takes the focus, on its first button: the one that changes nothing.
    expect(await hasFocus(dialog.getByRole("button", { name: en["common.cancel"] }))).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => hasFocus(revoke)).toBe(true);
    expect((await t.store.keys.get({ accountId: "acme", keyId }))?.revokedAt).toBeNull();

    // Back to the account: the link is before the heading.
    await tabTo(page.getByRole("link", { name: "Back to account acme" }), true);
    await page.keyboard.press("Enter");
    await heading("Account acme").waitFor();
  });

  it("creates a key through the form and leaves its one-time display, all from the keyboard", async () => {
    await tabTo(page.getByRole("link", { name: en["account.newKey"] }));
    await page.keyboard.press("Enter");
    await heading("New key for account acme").waitFor();

    await tabTo(page.getByLabel(en["field.name"]));
    await page.keyboard.type("keyboard-bot");
    await page.keyboard.press("Tab");
    expect(await hasFocus(page.getByLabel(en["budgets.field.day"]))).toBe(true);
    await page.keyboard.type("25");
    await tabTo(page.getByLabel(en["field.logBodies"]));
    await page.keyboard.press("Space");
    expect(await page.getByLabel(en["field.logBodies"]).isChecked()).toBe(false);
    await tabTo(page.getByRole("button", { name: en["newKey.submit"] }));
    await expectFocusRing();
    await page.keyboard.press("Space");

    const created = page.getByRole("heading", { name: "The key “keyboard-bot” is created" });
    await created.waitFor();
    expect(await hasFocus(created)).toBe(true);
    await tabTo(page.getByRole("button", { name: en["created.copy"] }));
    await page.keyboard.press("Enter");
    await page.getByText(en["created.copied"]).waitFor();
    const value = await page.getByLabel(en["created.value"]).inputValue();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(value);
    await tabTo(page.getByRole("link", { name: en["created.done"] }));
    await page.keyboard.press("Enter");
    await heading("Account acme").waitFor();

    const made = (await t.store.keys.list("acme")).find((key) => key.name === "keyboard-bot");
    expect(made).toMatchObject({ budget: 25_000_000, logBodies: false, revokedAt: null });
    await expect.poll(() => page.locator("table.keys tbody tr").count()).toBe(2);
  });

  it("revokes a key from its page, the focus then on the page's heading since its button is gone", async () => {
    const made = page.locator("table.keys tbody tr").getByRole("link", { name: "keyboard-bot" });
    await tabTo(made);
    await page.keyboard.press("Enter");
    const title = heading("Key “keyboard-bot”");
    await title.waitFor();
    await tabTo(page.locator(".title-row").getByRole("button", { name: en["keys.revoke"], exact: true }));
    await page.keyboard.press("Space");
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await page.keyboard.press("Tab");
    expect(await hasFocus(dialog.getByRole("button", { name: "Revoke “keyboard-bot”" }))).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByText("The key “keyboard-bot” is revoked.").waitFor();
    await expect.poll(() => hasFocus(title)).toBe(true);
    const revoked = (await t.store.keys.list("acme")).find((key) => key.name === "keyboard-bot");
    // Revoked now, by the gateway's clock (the test's, which nothing has moved).
    expect(revoked?.revokedAt).toBe(t.clock.now());
  });

  it("raised no console error or page error on the way", () => {
    expect(problems).toEqual([]);
  });
});
