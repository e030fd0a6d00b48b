// The dashboard in a real browser (Debian's Chromium driven by playwright-core) against a real gateway:
// signing in, creating a key through the form and reading it from the one-time display, using it on the
// public port, seeing its spend and request in the dashboard, revoking it, the operator's view with a
// top-up and the audit log, both languages; the keys table fitting a 1280-pixel window with keys in every
// state, its row menu used from the keyboard, the audit log's sentences, times in the browser's time zone —
// with no console error or CSP violation on the way and no token ever in the URL. Each view passes the axe
// check (test/helpers/axe.ts), the account page and the operator's view in both colour schemes. `npm test`
// builds dist/admin/ui first.

import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/admin/static.js";
import {
  formatCurrency,
  formatInstant,
  formatInstantUtc,
  plainSpaces,
} from "../../src/admin/ui/i18n/format.js";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium } from "../helpers/chromium.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

const ROOT = join(import.meta.dirname, "../..");
const SHOTS = join(ROOT, ".artifacts/screenshots");
const ADMIN = "admin-token-0123456789";
/** The browser's time zone: not UTC, so that showing instants in it is seen. */
const BROWSER_ZONE = "Europe/Moscow";
const ru = MESSAGES.ru;
const en = MESSAGES.en;

let upstream: StubUpstream;
let t: TestGateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminUrl: string;
let accountToken: string;
/** Console errors and warnings, page errors and CSP violations seen in the page. */
const problems: string[] = [];
/** Every URL the page was at. */
const urls: string[] = [];
/** Every secret that must never be in a URL. */
const secrets: string[] = [ADMIN];

const text = async (selector: ReturnType<Page["locator"]>) =>
  plainSpaces((await selector.innerText()).trim());
const rubles = (lang: "ru" | "en", amount: number) => plainSpaces(formatCurrency(lang, amount));
const balanceOf = async (id: string) => (await t.store.accountService.show(id)).balance / 1e6;

async function publicKeyView(key: string): Promise<{ status: number; body: any }> {
  const res = await t.fetch("/v1/key", { key });
  return { status: res.status, body: await json(res) };
}

/** The browser logs each request refused with 401 as a console error itself: expected, then forgotten. */
async function expectRefusedRequestsLogged(count: number): Promise<void> {
  const refused = (line: string) => /status of 401/.test(line);
  await expect.poll(() => problems.filter(refused).length).toBe(count);
  problems.splice(0, problems.length, ...problems.filter((line) => !refused(line)));
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** The axe check in the light colour scheme, then in the dark one (each has its own palette). */
async function expectAccessibleInBothSchemes(view: string): Promise<void> {
  const background = () =>
    page.evaluate<string>("getComputedStyle(document.documentElement).backgroundColor");
  await expectAccessible(page, view);
  const light = await background();
  await page.emulateMedia({ colorScheme: "dark" });
  try {
    expect(await background()).not.toBe(light);
    await expectAccessible(page, `${view}, dark scheme`);
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
  }
}

function assertNoTokenInUrl(): void {
  for (const url of [...urls, page.url()]) {
    for (const secret of secrets) expect(url).not.toContain(secret);
  }
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  mkdirSync(SHOTS, { recursive: true });

  upstream = await startStubUpstream();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { admin: { token: ADMIN }, pricing: { default: { input: 1000, output: 2000 } } },
  });
  adminUrl = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", name: "Acme Corp", balance: "1000" }, ACTOR);
  await t.store.accountService.create({ id: "other", balance: "5" }, ACTOR);
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  secrets.push(accountToken);

  browser = await launchChromium();
  // A Russian browser: the dashboard must start in Russian.
  context = await browser.newContext({
    locale: "ru-RU",
    timezoneId: BROWSER_ZONE,
    viewport: { width: 1360, height: 900 },
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: adminUrl });
  // Scripts passed to the page are strings: this file is type-checked without the DOM library.
  await context.addInitScript(
    `document.addEventListener("securitypolicyviolation", (event) =>
      console.error("CSP violation: " + event.violatedDirective + " blocked " + event.blockedURI));`,
  );
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) urls.push(frame.url());
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await upstream?.close();
});

describe("the dashboard", () => {
  it("is served with its CSP, index.html uncached and hashed assets cached for good", async () => {
    const res = await fetch(`${adminUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/<style|\sstyle=/); // no inline style
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets).toEqual([
      expect.stringMatching(/^\/assets\/app-[A-Z0-9]+\.css$/),
      expect.stringMatching(/^\/assets\/app-[A-Z0-9]+\.js$/),
    ]);
    for (const asset of assets) {
      const file = await fetch(`${adminUrl}${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(file.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
      await file.arrayBuffer();
    }
  });

  it("starts in Russian for a Russian browser and refuses a wrong token with a clear message", async () => {
    await page.goto(`${adminUrl}/`);
    await page.getByRole("heading", { level: 1, name: ru["login.title"] }).waitFor();
    // The watch for CSP violations works: an inline style attribute is refused and reported.
    await page.evaluate(`document.body.setAttribute("style", "color: red")`);
    await expect.poll(() => problems.join("\n")).toMatch(/CSP violation: style-src-attr/);
    problems.length = 0;
    expect(await page.locator("html").getAttribute("lang")).toBe("ru");
    await shot("login");
    await expectAccessible(page, "login page");

    await page.getByLabel(ru["login.token"]).fill(`sk-tunnel-account-${"0".repeat(64)}`);
    await page.getByRole("button", { name: ru["login.submit"] }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain(ru["login.wrong"]);
    expect(await alert.innerText()).toContain("Unknown token");
    await expectAccessible(page, "login page with a refused token");
    await expectRefusedRequestsLogged(1);
    expect(await page.evaluate<number>("sessionStorage.length")).toBe(0);
  });

  it("lets an account create a key, see its spend and requests, and revoke it", async () => {
    // Sign in with the account's dashboard token.
    await page.getByLabel(ru["login.token"]).fill(accountToken);
    await page.getByRole("button", { name: ru["login.submit"] }).click();
    await page.getByRole("heading", { level: 1, name: "Аккаунт acme" }).waitFor();
    expect(await text(page.getByTestId("balance"))).toBe("1 000,00 ₽");
    const storage = await page.evaluate(
      "({ session: Object.values(sessionStorage), local: Object.values(localStorage), cookie: document.cookie })",
    );
    expect(storage).toEqual({ session: [accountToken], local: [], cookie: "" });

    // The form checks the server's rules before anything is sent.
    await page.getByRole("link", { name: ru["account.newKey"] }).click();
    await page.getByRole("heading", { level: 1, name: "Новый ключ аккаунта acme" }).waitFor();
    await expectAccessible(page, "new-key form");
    await page.getByLabel(ru["field.name"]).fill("ci-bot");
    await page.getByLabel(ru["budgets.field.day"]).fill("1,5");
    await page.getByLabel(ru["field.ttl"]).fill("14m");
    await page.getByRole("button", { name: ru["newKey.submit"] }).click();
    await page.getByText(ru["newKey.fix"]).waitFor();
    await page.getByText(ru["v.amount.format"]).waitFor();
    await page.getByText(ru["v.ttl.min"]).waitFor();
    expect(await page.getByLabel(ru["budgets.field.day"]).getAttribute("aria-invalid")).toBe("true");
    expect(await t.store.keys.list("acme")).toEqual([]);
    await expectAccessible(page, "new-key form with its problems shown");

    await page.getByLabel(ru["budgets.field.day"]).fill("50");
    await page.getByLabel(ru["field.ttl"]).fill("30d");
    await page.getByLabel(ru["field.models"]).fill("demo-small");
    expect(await page.getByLabel(ru["field.logBodies"]).isChecked()).toBe(true);
    await page.getByRole("button", { name: ru["newKey.submit"] }).click();

    // The one-time display: the key, its copy button and the warning.
    await page.getByRole("heading", { name: "Ключ «ci-bot» создан" }).waitFor();
    expect(await page.getByText(ru["created.warning"]).isVisible()).toBe(true);
    const value = await page.getByLabel(ru["created.value"]).inputValue();
    expect(value).toMatch(/^sk-tunnel-/);
    secrets.push(value);
    await page.getByRole("button", { name: ru["created.copy"] }).click();
    await page.getByText(ru["created.copied"]).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(value);
    await shot("create-key-one-time-display");
    await expectAccessible(page, "one-time key display");

    // The key works on the public port, with what the form said.
    const created = await publicKeyView(value);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: "ci-bot",
      account_id: "acme",
      allowed_models: ["demo-small"],
      log_bodies: true,
      budgets: [{ period: "day", amount: 50, spent: 0 }],
    });
    const completion = await t.fetch("/v1/chat/completions", {
      key: value,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "demo-small",
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 5,
      }),
    });
    expect(completion.status).toBe(200);
    await completion.text();
    await t.gateway.settled();
    const charged = await publicKeyView(value);
    expect(charged.status).toBe(200);
    const spent = charged.body.budgets[0].spent as number;
    expect(spent).toBeGreaterThan(0);

    // The account view shows the spend /v1/key reports.
    await page.getByRole("link", { name: ru["created.done"] }).click();
    await page.getByRole("heading", { level: 1, name: "Аккаунт acme" }).waitFor();
    await page.getByRole("button", { name: ru["common.refresh"], exact: true }).click();
    const row = page.locator(`tr[data-key-id="${charged.body.id}"]`);
    await expect.poll(() => text(row)).toContain(`${rubles("ru", spent)} из ${rubles("ru", 50)} в день`);
    const rowText = await text(row);
    expect(rowText).toContain(`…${value.slice(-4)}`);
    expect(rowText).toContain(charged.body.id);
    expect(rowText).toContain(ru["keys.state.active"]);
    // Models and privacy are on the key's page, not in the table.
    expect(rowText).not.toContain("demo-small");
    expect(rowText).toContain(`осталось ${rubles("ru", 50 - spent)}`);
    expect(Number(await row.locator("progress").getAttribute("value"))).toBe(spent);
    expect(await text(page.getByTestId("balance"))).toBe(rubles("ru", await balanceOf("acme")));
    // The audit log names the creation; the columns sort.
    await expect.poll(() => page.locator('td[data-action="key.create"]').count()).toBe(1);
    const nameHeader = page.locator("th", { has: page.getByRole("button", { name: ru["keys.col.name"] }) });
    await page.getByRole("button", { name: ru["keys.col.name"] }).click();
    expect(await nameHeader.getAttribute("aria-sort")).toBe("ascending");
    await page.getByRole("button", { name: ru["keys.col.name"] }).click();
    expect(await nameHeader.getAttribute("aria-sort")).toBe("descending");
    await shot("account-view");
    await expectAccessibleInBothSchemes("account page (Russian)");

    // The key's page: charts, the request with its bodies, the client's view.
    await row.getByRole("link", { name: "ci-bot" }).click();
    await page.getByRole("heading", { level: 1, name: "Ключ «ci-bot»" }).waitFor();
    const canvases = page.locator(".uplot canvas");
    await expect.poll(() => canvases.count()).toBe(2);
    const box = await canvases.first().boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect(box?.height).toBeGreaterThan(100);
    const request = page.locator("table.requests tr[data-request-id]");
    await expect.poll(() => request.count()).toBe(1);
    const requestText = await text(request);
    expect(requestText).toContain("POST /v1/chat/completions");
    expect(requestText).toContain("demo-small");
    expect(requestText).toContain("200");
    expect(requestText).toContain(rubles("ru", spent));
    const show = request.getByRole("button", { name: ru["req.show"] });
    await show.click();
    expect(await request.getByRole("button", { name: ru["req.hide"] }).getAttribute("aria-expanded")).toBe(
      "true",
    );
    const bodies = page.locator("table.requests tr.bodies-row pre");
    expect(await bodies.first().innerText()).toContain('"content": "hi"');
    expect(await bodies.last().innerText()).toContain('"object": "chat.completion"');
    const facts = await text(page.locator(".facts"));
    expect(facts).toContain("demo-small");
    expect(facts).toContain(ru["keys.bodiesOn"]);
    expect(facts).toContain(ru["time.billingZone"]);
    const clientView = JSON.parse(await page.getByTestId("client-view").innerText());
    expect(clientView).toEqual(charged.body);
    await shot("key-detail");
    await expectAccessible(page, "key page with a request's bodies open");
    // A reload keeps the session (sessionStorage) and the view (the URL's fragment holds only ids).
    expect(page.url()).toBe(`${adminUrl}/#/accounts/acme/keys/${charged.body.id}`);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Ключ «ci-bot»" }).waitFor();

    // Change the key: a new daily budget, a monthly one beside it, and no body logging (PATCH sends only what
    // changed; the windows go together, the day's first as it was).
    await page.getByLabel(ru["budgets.field.day"]).fill("60.5");
    await page.getByLabel(ru["budgets.field.month"]).fill("1000");
    await page.getByLabel(ru["field.logBodies"]).uncheck();
    await page.getByRole("button", { name: ru["common.save"] }).click();
    await page.getByText(ru["key.saved"]).waitFor();
    expect(await text(page.locator(".facts"))).toContain(
      `${rubles("ru", spent)} из ${rubles("ru", 60.5)} в день`,
    );
    const changed = (await publicKeyView(value)).body;
    expect(changed).toMatchObject({ log_bodies: false });
    expect(changed.budgets).toMatchObject([
      { period: "day", amount: 60.5, spent },
      { period: "month", amount: 1000, spent },
    ]);
    expect(JSON.parse(await page.getByTestId("client-view").innerText())).toMatchObject({
      log_bodies: false,
    });

    // Revoke, after a confirmation that names the key.
    await page.getByRole("button", { name: ru["keys.revoke"], exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("Отозвать ключ «ci-bot»?");
    expect(await dialog.innerText()).toContain(charged.body.id);
    await expectAccessible(page, "revoke dialog");
    await dialog.getByRole("button", { name: "Отозвать «ci-bot»" }).click();
    await page.getByText("Ключ «ci-bot» отозван.").waitFor();
    expect(await dialog.count()).toBe(0);
    const revoked = await publicKeyView(value);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe("key_revoked");
    expect(await page.locator(".title-row .badge.revoked").count()).toBe(1);
    assertNoTokenInUrl();
  }, 60_000);

  it("switches to English: words, the lang attribute and the ruble format", async () => {
    await page.getByLabel(ru["nav.language"]).selectOption("en");
    await page.getByRole("heading", { level: 1, name: "Key “ci-bot”" }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    await page.getByRole("link", { name: "Back to account acme" }).click();
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();
    const balance = await balanceOf("acme");
    expect(await text(page.getByTestId("balance"))).toBe(rubles("en", balance));
    expect(rubles("en", balance)).toMatch(/^₽999\.\d+$/);
    expect(rubles("ru", balance)).toMatch(/^999,\d+ ₽$/);
    expect(await page.locator('td[data-action="key.revoke"]').innerText()).toBe(
      en["audit.action.key.revoke"],
    );
    // The choice is remembered; the token is not.
    expect(await page.evaluate("Object.values(localStorage)")).toEqual(["en"]);
    await expectAccessible(page, "account page (English)");

    // A token that stops working mid-session (here: replaced by a new one) ends the session with a message.
    const replaced = (await t.store.accountService.createToken("acme", ACTOR)).token;
    secrets.push(replaced);
    await page.getByRole("button", { name: en["common.refresh"], exact: true }).click();
    await page.getByRole("heading", { level: 1, name: en["login.title"] }).waitFor();
    await page.getByText(en["login.expired"]).waitFor();
    expect(await page.evaluate<number>("sessionStorage.length")).toBe(0);
    // The view's three requests (account, keys, audit log) were refused.
    await expectRefusedRequestsLogged(3);
    await page.getByLabel(en["login.token"]).fill(replaced);
    await page.getByRole("button", { name: en["login.submit"] }).click();
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();

    await page.getByRole("button", { name: en["nav.logout"] }).click();
    await page.getByRole("heading", { level: 1, name: en["login.title"] }).waitFor();
    await page.getByText(en["login.signedOut"]).waitFor();
    expect(await page.evaluate<number>("sessionStorage.length")).toBe(0);
  });

  it("gives the operator every account, a top-up form and the audit log", async () => {
    await page.getByLabel(en["login.token"]).fill(ADMIN);
    await page.getByRole("button", { name: en["login.submit"] }).click();
    await page.getByRole("heading", { level: 1, name: en["op.title"] }).waitFor();
    const acme = page.locator('tr[data-account-id="acme"]');
    const before = await balanceOf("acme");
    expect(await text(acme.getByTestId("balance"))).toBe(rubles("en", before));
    expect(await text(page.locator('tr[data-account-id="other"]').getByTestId("balance"))).toBe("₽5.00");

    // A wrong amount is refused in the page, a right one tops the balance up.
    await page.getByLabel(en["op.topup.account"], { exact: true }).selectOption("acme");
    await page.getByLabel(en["op.topup.amount"]).fill("-3");
    await page.getByRole("button", { name: en["op.topup.submit"], exact: true }).click();
    await page.getByText(en["v.amount.format"]).waitFor();
    expect(await balanceOf("acme")).toBe(before);
    await page.getByLabel(en["op.topup.amount"]).fill("250.5");
    await page.getByRole("button", { name: en["op.topup.submit"], exact: true }).click();
    await page.getByText(`${rubles("en", 250.5)} added to acme`).waitFor();
    const after = await balanceOf("acme");
    expect(after).toBeCloseTo(before + 250.5, 6);
    await expect.poll(() => text(acme.getByTestId("balance"))).toBe(rubles("en", after));

    // The audit log has the key's creation and revocation and the top-up, naming who did what.
    const audit = page.locator("table.audit");
    await expect.poll(() => audit.locator('td[data-action="account.topup"]').count()).toBe(1);
    expect(await audit.locator('td[data-action="key.create"]').innerText()).toBe(
      en["audit.action.key.create"],
    );
    expect(await audit.locator('td[data-action="key.revoke"]').innerText()).toBe(
      en["audit.action.key.revoke"],
    );
    const topUp = audit.locator("tr", { has: page.locator('td[data-action="account.topup"]') });
    expect(await text(topUp)).toContain(en["audit.actor.admin"]);
    expect(await text(topUp)).toContain(`Balance topped up by ${rubles("en", 250.5)}.`);
    // The values as recorded, on demand.
    expect(await text(topUp)).not.toContain("amount: 250.5");
    await topUp.getByText(en["audit.raw"]).click();
    expect(await text(topUp)).toContain("amount: 250.5");
    const creation = audit.locator("tr", { has: page.locator('td[data-action="key.create"]') });
    expect(await text(creation)).toContain("account acme");
    await shot("operator-view");
    await expectAccessibleInBothSchemes("operator view");

    // The operator opens any account's view.
    await acme.getByRole("link", { name: "acme" }).click();
    await page.getByRole("heading", { level: 1, name: "Account acme" }).waitFor();
    expect(await text(page.getByTestId("balance"))).toBe(rubles("en", after));
    await expect.poll(() => page.locator("table.keys tbody tr").count()).toBe(1);
    assertNoTokenInUrl();
  });

  it("fits the keys table in a 1280-pixel window in both languages, with keys in every state", async () => {
    const keys = t.store.keyService;
    await t.store.accountService.create({ id: "fits", name: "Window Fit LLC", balance: "500" }, ACTOR);
    const make = async (name: string, fields: Record<string, unknown> = {}) =>
      (await keys.create({ accountId: "fits", name, budget: "50", period: "day", ...fields }, ACTOR)).record;
    const expiring = await make("nightly-batch-export-job", { ttl: "15m" });
    // The gateway's clock passes the expiry: no waiting.
    t.clock.advance(16 * 60_000);
    const active = await make("production-backend-primary", {
      ttl: "30d",
      models: ["demo-small", "demo-large-instruct"],
    });
    const disabled = await make("staging-frontend-preview");
    await keys.setDisabled(disabled.id, true, ACTOR);
    const revoked = await make("leaked-laptop-key-from-offsite");
    const revokedAt = new Date(
      (await keys.revoke(revoked.id, ACTOR)).record.revokedAt as number,
    ).toISOString();
    const rotating = await make("partner-integration-webhooks");
    await keys.rotate(rotating.id, "24h", ACTOR);
    const states = { active, disabled, expired: expiring, revoked, rotating };

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${adminUrl}/#/accounts/fits`);
    for (const lang of ["ru", "en"] as const) {
      const words = MESSAGES[lang];
      await page.locator(".lang select").selectOption(lang);
      await page
        .getByRole("heading", { level: 1, name: words["account.title"].replace("{id}", "fits") })
        .waitFor();
      await expect.poll(() => page.locator("table.keys tbody tr").count()).toBe(5);
      for (const [state, key] of Object.entries(states)) {
        const row = page.locator(`tr[data-key-id="${key.id}"]`);
        expect(await row.getAttribute("data-state"), key.name).toBe(state);
        expect(await text(row.locator(".badge"))).toBe(words[`keys.state.${state}` as keyof typeof words]);
        const bars = state === "revoked" || state === "expired" ? 0 : 1;
        expect(await row.locator("progress").count(), `${lang} ${state}`).toBe(bars);
        // No solid red button on any row: the actions are behind one small menu button.
        expect(await row.locator("button.danger").count()).toBe(0);
        expect(await row.locator('button[aria-haspopup="menu"]').count()).toBe(1);
      }
      // A revoked key says just that; its date is in the badge's title.
      const revokedBadge = page.locator(`tr[data-key-id="${revoked.id}"] .badge`);
      expect(plainSpaces((await revokedBadge.getAttribute("title")) ?? "")).toBe(
        plainSpaces(words["keys.revokedAt"].replace("{date}", formatInstant(lang, revokedAt, BROWSER_ZONE))),
      );
      // No horizontal scrolling: not in the table's wrapper, not in the page.
      const widths = await page.evaluate<number[]>(
        `(() => {
          const wrap = document.querySelector("table.keys").closest(".table-wrap");
          const root = document.documentElement;
          return [wrap.scrollWidth, wrap.clientWidth, root.scrollWidth, root.clientWidth];
        })()`,
      );
      const [scrollWidth = 0, clientWidth = 0, pageScroll = 0, pageWidth = 0] = widths;
      expect(scrollWidth, `${lang}: the keys table scrolls sideways`).toBeLessThanOrEqual(clientWidth);
      expect(pageScroll, `${lang}: the page scrolls sideways`).toBeLessThanOrEqual(pageWidth);
      // Expiry in the browser's time zone, the UTC time on hover.
      const expires = page.locator(`tr[data-key-id="${active.id}"] td.date time`);
      const iso = new Date(active.expiresAt as number).toISOString();
      expect(await expires.getAttribute("datetime")).toBe(iso);
      expect(await text(expires)).toBe(plainSpaces(formatInstant(lang, iso, BROWSER_ZONE)));
      expect(plainSpaces((await expires.getAttribute("title")) ?? "")).toBe(
        plainSpaces(formatInstantUtc(lang, iso)),
      );
      await shot(`account-keys-1280-${lang}`);
    }
    await page.setViewportSize({ width: 1360, height: 900 });
  });

  it("lets the keys table be searched, filtered and acted on from the keyboard", async () => {
    const active = (await t.store.keys.list("fits")).find((k) => k.name === "production-backend-primary");
    if (!active) throw new Error("the previous test made the key production-backend-primary");
    const row = page.locator(`tr[data-key-id="${active.id}"]`);
    const menuButton = row.getByRole("button", { name: "Actions for the key production-backend-primary" });
    const focused = () => page.evaluate<string>("document.activeElement?.textContent ?? ''");

    // Enter opens the menu on its first item; the arrows move; Escape closes it and gives the focus back.
    await menuButton.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await menu.waitFor();
    expect(await menuButton.getAttribute("aria-expanded")).toBe("true");
    expect(await focused()).toBe(en["keys.open"]);
    await shot("account-keys-row-menu");
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe(en["key.disable"]);
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe(en["keys.revoke"]);
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe(en["keys.open"]);
    await page.keyboard.press("Escape");
    expect(await menu.count()).toBe(0);
    expect(await menuButton.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-haspopup')")).toBe(
      "menu",
    );
    // Tab goes through the items too, and out of the menu, closing it.
    await page.keyboard.press("ArrowUp");
    await menu.waitFor();
    expect(await focused()).toBe(en["keys.revoke"]);
    await page.keyboard.press("Tab");
    expect(await menu.count()).toBe(0);

    // Disable from the menu: the row shows it, so does the gateway.
    await menuButton.click();
    await menu.getByRole("menuitem", { name: en["key.disable"] }).click();
    await page.getByText("The key “production-backend-primary” is disabled.").waitFor();
    await expect.poll(() => row.getAttribute("data-state")).toBe("disabled");
    expect((await t.store.keys.get({ accountId: "fits", keyId: active.id }))?.disabledAt).toBe(t.clock.now());
    // Revoke from the menu asks first, naming the key.
    await menuButton.click();
    await menu.getByRole("menuitem", { name: en["keys.revoke"] }).click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.innerText()).toContain("Revoke the key “production-backend-primary”?");
    await dialog.getByRole("button", { name: en["common.cancel"] }).click();
    expect(await dialog.count()).toBe(0);

    // Search by a part of the name or id, whatever its case; filter by state.
    const search = page.getByLabel(en["keys.search"]);
    const shown = () => page.locator("table.keys tbody tr").count();
    await search.fill("PARTNER");
    await expect.poll(shown).toBe(1);
    await search.fill(active.id.slice(4, 12));
    await expect.poll(shown).toBe(1);
    await search.fill("");
    await page.getByLabel(en["keys.col.state"], { exact: true }).selectOption("revoked");
    await expect.poll(shown).toBe(1);
    expect(await page.locator("table.keys tbody tr").getAttribute("data-state")).toBe("revoked");
    await search.fill("no such key");
    await page.getByText(en["keys.noMatch"]).waitFor();
    await search.fill("");
    await page.getByLabel(en["keys.col.state"], { exact: true }).selectOption("all");
    await expect.poll(shown).toBe(5);
  });

  it("writes a budget change in the audit log as a sentence, in both languages", async () => {
    const [key] = (await t.store.keys.list("fits")).filter((k) => k.name === "staging-frontend-preview");
    await t.store.keyService.update(key?.id, { budget: "100", period: "month" }, ACTOR);
    await page.getByRole("button", { name: en["common.refresh"], exact: true }).click();
    const change = page.locator("table.audit tr", {
      has: page.locator('td[data-action="key.update"]'),
    });
    await expect.poll(() => change.count()).toBe(1);
    expect(await text(change.locator(".sentence"))).toBe(
      `Budget changed from ${rubles("en", 50)} per day to ${rubles("en", 100)} per month.`,
    );
    await page.getByLabel(en["nav.language"]).selectOption("ru");
    await page.getByRole("heading", { level: 1, name: "Аккаунт fits" }).waitFor();
    expect(await text(change.locator(".sentence"))).toBe(
      `Бюджет изменён: было ${rubles("ru", 50)} в день, стало ${rubles("ru", 100)} в месяц.`,
    );
    // The recorded values stay a click away.
    await change.getByText(ru["audit.raw"]).click();
    expect(await text(change.locator("details.raw code"))).toBe("budget: 100 · period: month");
    await shot("account-audit-sentences");
    await page.getByLabel(ru["nav.language"]).selectOption("en");
  });

  it("ran without a console error, a page error or a CSP violation, and never put a token in a URL", () => {
    // Every view was seen, hash navigations included.
    expect(urls).toContain(`${adminUrl}/#/accounts/acme/new-key`);
    expect(urls.some((url) => url.includes("#/accounts/acme/keys/key_"))).toBe(true);
    assertNoTokenInUrl();
    expect(problems).toEqual([]);
  });
});
