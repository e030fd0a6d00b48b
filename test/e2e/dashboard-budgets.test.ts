// The dashboard's account budgets section and a key's windows, in a real browser (Debian's Chromium,
// playwright-core) against a real gateway: the operator makes an account budgeted with a monthly budget (a
// form that refuses a budgeted account without one), the account's owner sees the mode and the windows
// without the form, and a key's page shows each of its windows. No console error, and the views pass the axe
// check (test/helpers/axe.ts).

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";

const ROOT = join(import.meta.dirname, "../..");
const ADMIN = "admin-token-0123456789";
const en = MESSAGES.en;

let t: TestGateway;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let accountToken: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  t = await startTestGateway({ config: { admin: { token: ADMIN } } });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "0" }, ACTOR);
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(browser));
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(token: string, heading: string): Promise<void> {
  await page.goto(`${t.gateway.adminUrl}/`);
  await page.getByLabel(en["login.token"]).fill(token);
  await page.getByRole("button", { name: en["login.submit"] }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

describe("account budgets in the dashboard", () => {
  it("let the operator make an account budgeted, and show the owner its windows without the form", async () => {
    await signIn(ADMIN, "All accounts");
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme`);
    const section = page.getByRole("region", { name: en["budgets.title"] });
    const form = section.getByTestId("budgets-form");
    await form.waitFor();
    expect(await section.getByTestId("billing-mode").innerText()).toBe(en["budgets.mode.prepaid"]);

    await form.getByLabel(en["budgets.billing"]).selectOption("budgeted");
    await form.getByRole("button", { name: en["budgets.save"] }).click();
    await form.getByText(en["budgets.problem.needsWindow"]).waitFor();
    await form.getByLabel(en["budgets.field.month"]).fill("300000");
    await form.getByLabel(en["budgets.field.day"]).fill("12.5");
    await form.getByRole("button", { name: en["budgets.save"] }).click();
    await form.getByText(en["budgets.saved"]).waitFor();
    const account = await t.store.accounts.require("acme");
    expect(account.billing).toBe("budgeted");
    expect(account.budgets.map((window) => [window.period, window.budget])).toEqual([
      ["day", 12_500_000],
      ["month", 300_000_000_000],
    ]);
    expect(await section.getByTestId("billing-mode").innerText()).toBe(en["budgets.mode.budgeted"]);
    await expect.poll(() => section.getByTestId("account-windows").locator("tbody tr").count()).toBe(2);
    await expectAccessible(page, "an account's budgets, as the operator sees them");

    // With no balance, the budgeted account's key is created and shows each of its windows.
    const { record } = await t.store.keyService.create(
      { accountId: "acme", name: "search", budgets: ["100/day", "2000/month"] },
      ACTOR,
    );
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${record.id}`);
    await page.getByTestId("window-day").waitFor();
    expect(await page.getByTestId("window-month").count()).toBe(1);
    await expectAccessible(page, "a key with two budget windows");

    // The account's owner, in a browser of their own.
    const operatorProblems = problems;
    ({ page, problems } = await watchedPage(browser));
    await signIn(accountToken, "Account acme");
    const owners = page.getByRole("region", { name: en["budgets.title"] });
    await owners.getByTestId("account-windows").waitFor();
    expect(await owners.getByTestId("billing-mode").innerText()).toBe(en["budgets.mode.budgeted"]);
    expect(await owners.getByTestId("budgets-form").count()).toBe(0);
    await expectAccessible(page, "an account's budgets, as its owner sees them");
    expect([...operatorProblems, ...problems]).toEqual([]);
  });
});
