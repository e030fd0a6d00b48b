// The dashboard's alert pages in a real browser (Debian's Chromium, playwright-core) against a real gateway and
// real webhook receivers: an account owner sets the low-balance mark and a webhook, copies its secret from the
// one-time display, sends a test event and sees its events delivered; a key's thresholds are changed; the
// operator tests the configured webhooks. No console error, no secret in a URL, and each view passes the axe
// check (test/helpers/axe.ts).

import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { ACTOR } from "../helpers/actor.js";
import {
  documentedVerify,
  WEBHOOK_ENV,
  WEBHOOK_SECRET,
  WEBHOOK_SECRET_ENV,
  waitForDelivery,
} from "../helpers/alerts.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const ROOT = join(import.meta.dirname, "../..");
const SHOTS = join(ROOT, ".artifacts/screenshots");
const ADMIN = "admin-token-0123456789";
const en = MESSAGES.en;

let t: TestGateway;
let browser: Browser;
let page: Page;
let receiver: WebhookReceiver;
let operatorReceiver: WebhookReceiver;
let accountToken: string;
let problems: string[] = [];
let urls: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  receiver = await startWebhookReceiver("/account-hook");
  operatorReceiver = await startWebhookReceiver("/operator-hook");
  t = await startTestGateway({
    config: {
      admin: { token: ADMIN },
      alerts: {
        allowHttp: true,
        allowPrivateNetworks: true,
        webhooks: [
          { url: operatorReceiver.url, secretEnv: WEBHOOK_SECRET_ENV, events: ["balance.exhausted"] },
        ],
        delivery: { pollIntervalMs: 20 },
      },
    },
    env: WEBHOOK_ENV,
  });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  browser = await launchChromium();
  ({ page, problems, urls } = await watchedPage(browser, { clipboardOrigin: t.gateway.adminUrl as string }));
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
  await operatorReceiver?.close();
});

async function signIn(token: string, heading: string): Promise<void> {
  await page.goto(`${t.gateway.adminUrl}/`);
  await page.getByLabel(en["login.token"]).fill(token);
  await page.getByRole("button", { name: en["login.submit"] }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

describe("the dashboard's alerts", () => {
  it("let an account owner set a low-balance mark and a webhook, copy its secret once and send a test event", async () => {
    await signIn(accountToken, "Account acme");
    const alerts = page.getByRole("region", { name: en["alerts.title"] });
    await alerts.getByText(en["alerts.webhook.none"]).waitFor();

    await alerts.getByLabel(en["alerts.lowBalance"]).fill("5");
    await alerts.getByRole("button", { name: en["alerts.lowBalance.save"] }).click();
    await alerts.getByText(en["alerts.saved"]).waitFor();
    expect((await t.store.accounts.require("acme")).lowBalance).toBe(5_000_000);

    await alerts.getByLabel(en["alerts.webhook.url"]).fill(receiver.url);
    await alerts.getByRole("button", { name: en["alerts.webhook.set"] }).click();
    await page.getByRole("heading", { name: en["alerts.secret.title"] }).waitFor();
    expect(await page.getByText(en["alerts.secret.warning"]).isVisible()).toBe(true);
    const secret = await page.getByLabel(en["alerts.secret.value"]).inputValue();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    await expectAccessible(page, "webhook secret's one-time display");
    await page.getByRole("button", { name: en["created.copy"] }).click();
    await page.getByText(en["created.copied"]).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
    await page.getByRole("button", { name: en["alerts.secret.done"] }).click();

    // Shown again: the URL and the secret's last characters, never the secret.
    const card = page.getByTestId("webhook");
    await card.getByText(receiver.url).waitFor();
    expect(await card.innerText()).toContain(`…${secret.slice(-4)}`);
    expect(await page.content()).not.toContain(secret);

    await card.getByRole("button", { name: en["alerts.webhook.test"] }).click();
    const result = page.getByTestId("test-result");
    await result.waitFor();
    expect(await result.innerText()).toMatch(/^Test event evt_test_\w+ delivered: HTTP 200\.$/);
    await expectAccessible(page, "account page with a webhook and its test result");
    expect(receiver.received.map((r) => r.body.type)).toEqual(["webhook.test"]);
    const verify = await documentedVerify();
    const [test] = receiver.received;
    expect(verify(secret, test?.signature as string, test?.raw as string, { now: t.clock.now() })).toBe(true);
  });

  it("list the account's events with their deliveries", async () => {
    const key = await t.newKey({ accountId: "acme", budget: "10" });
    const event = await waitForDelivery(t.store, "acme", (e) => e.type === "key.created", "delivered");
    const alerts = page.getByRole("region", { name: en["alerts.title"] });
    await alerts.getByRole("button", { name: en["events.refresh"] }).click();
    const row = page.locator(`tr[data-event-id="${event.id}"]`);
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("delivered");
    const text = await row.innerText();
    expect(text).toContain("key.created");
    expect(text).toContain(key.id);
    expect(text).toContain(en["events.endpoint.account"]);
    expect(text).toContain("HTTP 200");
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "alerts-account.png"), fullPage: true });
    await expectAccessible(page, "account page with its events");
  });

  it("change a key's thresholds, refusing what is not whole percents", async () => {
    const [key] = await t.store.keys.list("acme");
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${key?.id}`);
    const section = page.getByRole("region", { name: en["keyAlerts.title"] });
    expect(await section.getByTestId("key-thresholds").innerText()).toBe(en["keyAlerts.default"]);
    await section.getByLabel(en["keyAlerts.field"]).fill("50, 150");
    await section.getByRole("button", { name: en["keyAlerts.save"] }).click();
    await section.getByText(en["v.thresholds"]).waitFor();
    await expectAccessible(page, "key page with a refused threshold");
    await section.getByLabel(en["keyAlerts.field"]).fill("90, 50");
    await section.getByRole("button", { name: en["keyAlerts.save"] }).click();
    await section.getByText("50, 90 % of the budget").waitFor();
    expect((await t.store.keys.get({ accountId: "acme", keyId: key?.id as string }))?.alertAt).toEqual([
      50, 90,
    ]);
    await section.getByRole("button", { name: en["keyAlerts.disable"] }).click();
    await section.getByText(en["keyAlerts.off"]).waitFor();
    expect((await t.store.keys.get({ accountId: "acme", keyId: key?.id as string }))?.alertAt).toEqual([]);
  });

  it("show the operator the configured webhooks, each with its test button", async () => {
    await page.evaluate("sessionStorage.clear()");
    await signIn(ADMIN, "All accounts");
    const section = page.getByRole("region", { name: en["opHooks.title"] });
    const row = section.locator("tr[data-webhook-id]");
    expect(await row.innerText()).toContain(operatorReceiver.url);
    expect(await row.innerText()).toContain("balance.exhausted");
    await row.getByRole("button", { name: en["alerts.webhook.test"] }).click();
    await row.getByText(/delivered: HTTP 200/).waitFor();
    await expectAccessible(page, "operator view with its webhooks tested");
    const [test] = operatorReceiver.received;
    expect(test?.body).toMatchObject({ type: "webhook.test", account_id: null });
    const verify = await documentedVerify();
    expect(
      verify(WEBHOOK_SECRET, test?.signature as string, test?.raw as string, { now: t.clock.now() }),
    ).toBe(true);
  });

  it("never put a token or a secret in a URL, and raise no console error", () => {
    for (const url of urls) {
      expect(url).not.toContain(accountToken);
      expect(url).not.toContain(ADMIN);
      expect(url).not.toContain("whsec_");
    }
    expect(problems).toEqual([]);
  });
});
