// The dashboard's usage views in a real browser (Debian's Chromium, playwright-core) against a real gateway
// after a mixed run of requests on several keys, models and days: the account overview's totals and its keys
// and models equal the admin API's figures; both CSV exports download, parse and sum to the same, to the
// micro-ruble; the key page's request log filters and pages; a key is rotated (the new value works), disabled
// (403 on the public port) and enabled again from its page; the operator finds an account and pages through
// all of them, with totals equal to the sum of every account. No console error, no token in a URL, and each
// view passes the axe check.

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatCurrency, plainSpaces } from "../../src/admin/ui/i18n/format.js";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { readRubles } from "../../src/core/money.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

const ROOT = join(import.meta.dirname, "../..");
const SHOTS = join(ROOT, ".artifacts/screenshots");
const ADMIN = "admin-token-0123456789";
const en = MESSAGES.en;
/** Accounts besides acme, so that the operator's list has two pages of 50. */
const OTHER_ACCOUNTS = 55;

let upstream: StubUpstream;
let t: TestGateway;
let browser: Browser;
let page: Page;
let accountToken: string;
const keys: Record<string, { id: string; key: string }> = {};
let problems: string[] = [];
let urls: string[] = [];

const rub = (amount: number) => plainSpaces(formatCurrency("en", amount));
const micros = (text: string) => {
  const value = readRubles(text);
  if (value === undefined) throw new Error(`${text} is not an amount of rubles`);
  return value;
};

async function admin(path: string, token = accountToken): Promise<any> {
  const res = await fetch(`${t.gateway.adminUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return res.json();
}

async function chat(key: string, model: string): Promise<number> {
  const res = await t.fetch("/v1/chat/completions", {
    key,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: "How much?" }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Reads a downloaded CSV: its header and rows as records, after the byte order mark. */
function parseCsv(path: string): Record<string, string>[] {
  const text = readFileSync(path, "utf8");
  expect(text.charCodeAt(0)).toBe(0xfeff);
  const [header, ...rows] = text
    .slice(1)
    .split("\r\n")
    .filter((line) => line !== "");
  const columns = (header as string).split(",");
  // The figures of these exports have no commas or quotes, so a plain split reads them.
  return rows.map((row) => Object.fromEntries(row.split(",").map((cell, i) => [columns[i], cell])));
}

async function download(button: string): Promise<string> {
  const [file] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: button }).click(),
  ]);
  const path = join(SHOTS, `download-${file.suggestedFilename()}`);
  await file.saveAs(path);
  return path;
}

async function signIn(token: string, heading: string): Promise<void> {
  await page.goto(`${t.gateway.adminUrl}/`);
  await page.getByLabel(en["login.token"]).fill(token);
  await page.getByRole("button", { name: en["login.submit"] }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  upstream = await startStubUpstream();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: {
      admin: { token: ADMIN },
      pricing: {
        default: { input: 1000, output: 2000 },
        models: { "demo-large": { input: 7000, output: 9000 } },
      },
    },
  });
  await t.store.accountService.create({ id: "acme", name: "Acme Corp", balance: "1000" }, ACTOR);
  for (let i = 0; i < OTHER_ACCOUNTS; i++) {
    await t.store.accountService.create({ id: `client-${String(i).padStart(2, "0")}`, balance: "10" }, ACTOR);
  }
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  for (const name of ["prod", "dev", "batch"]) {
    const created = await t.store.keyService.create({ accountId: "acme", name }, ACTOR);
    keys[name] = { id: created.record.id, key: created.value };
  }

  // Yesterday: a few requests; today: many more on prod (two pages of its request log), a failure, and the
  // other keys on both models.
  t.clock.set("2026-11-20T15:00:00.000Z");
  for (const model of ["demo-small", "demo-large", "demo-small"])
    expect(await chat(keys.dev?.key as string, model)).toBe(200);
  t.clock.set("2026-11-21T10:00:00.000Z");
  for (let i = 0; i < 28; i++) {
    expect(await chat(keys.prod?.key as string, i % 3 === 0 ? "demo-large" : "demo-small")).toBe(200);
  }
  upstream.handle((_req, res) => {
    res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"boom"}}');
    return true;
  });
  expect(await chat(keys.prod?.key as string, "demo-small")).toBe(500);
  upstream.handle(null);
  for (const model of ["demo-large", "demo-large"])
    expect(await chat(keys.batch?.key as string, model)).toBe(200);
  // Every settlement is in before the views are read.
  await t.gateway.settled();

  browser = await launchChromium();
  ({ page, problems, urls } = await watchedPage(browser, {
    timezoneId: "Europe/Moscow",
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await upstream?.close();
});

describe("the account overview", () => {
  it("shows totals, keys and models equal to the admin API's figures", async () => {
    const usage = await admin("/admin/v1/accounts/acme/usage");
    expect(usage.totals.month.requests).toBe(34);
    expect(usage.totals.today.requests).toBe(31);
    // The API's own figures add up: the keys and the models each sum to the range's cost.
    const sum = (rows: { cost: number }[]) =>
      rows.reduce((total, row) => total + micros(String(row.cost)), 0);
    expect(sum(usage.keys)).toBe(micros(String(usage.totals.range.cost)));
    expect(sum(usage.models)).toBe(micros(String(usage.totals.range.cost)));
    expect(micros(String(usage.totals.range.cost))).toBe(
      1000 * 1_000_000 - (await t.store.accounts.require("acme")).balance,
    );

    await signIn(accountToken, "Account acme");
    const totals = page.getByTestId("usage-totals");
    await totals.waitFor();
    const text = plainSpaces(await totals.innerText());
    expect(text).toContain(rub(usage.totals.today.cost));
    expect(text).toContain(rub(usage.totals.month.cost));
    for (const k of usage.keys) {
      const row = page.locator(`tr[data-usage-key="${k.key_id}"]`);
      expect(plainSpaces(await row.innerText())).toContain(rub(k.cost));
    }
    const models = plainSpaces(await page.getByTestId("top-models").innerText());
    for (const m of usage.models) expect(models).toContain(rub(m.cost));
    await page.getByRole("radio", { name: en["usage.byModel"] }).check();
    await page.getByText(en["usage.chartByModel"]).waitFor();
    await page.locator("#usage-heading").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, "account-usage.png"), fullPage: true });
    await expectAccessible(page, "account overview with usage");
  });

  it("exports daily usage and requests as CSV files that sum to the same, to the micro-ruble", async () => {
    const usage = await admin("/admin/v1/accounts/acme/usage");
    const daily = parseCsv(await download(en["usage.exportUsage"]));
    expect(daily.reduce((sum, row) => sum + micros(row.cost_rub as string), 0)).toBe(
      micros(String(usage.totals.range.cost)),
    );
    expect(daily.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(usage.totals.range.requests);
    // One line per day, key and model.
    expect(
      daily.filter((row) => row.key_name === "dev").map((row) => [row.date, row.model, row.requests]),
    ).toEqual([
      ["2026-11-20", "demo-large", "1"],
      ["2026-11-20", "demo-small", "2"],
    ]);
    const requests = parseCsv(await download(en["usage.exportRequests"]));
    expect(requests).toHaveLength(usage.totals.range.requests);
    expect(requests.reduce((sum, row) => sum + micros(row.cost_rub as string), 0)).toBe(
      micros(String(usage.totals.range.cost)),
    );
    expect(requests.filter((row) => row.status === "500")).toHaveLength(1);
  });

  it("shows one chosen day alone, and says when a range has no requests", async () => {
    await page.getByLabel(en["usage.from"], { exact: true }).fill("2026-11-20");
    await page.getByLabel(en["usage.to"], { exact: true }).fill("2026-11-20");
    await page.getByRole("button", { name: en["usage.show"] }).click();
    await expect
      .poll(async () => plainSpaces(await page.getByTestId("top-keys").innerText()))
      .not.toContain("prod");
    expect(plainSpaces(await page.getByTestId("top-keys").innerText())).toContain("dev");
    await page.screenshot({ path: join(SHOTS, "account-usage-one-day.png"), fullPage: true });
    await page.getByLabel(en["usage.from"], { exact: true }).fill("2026-10-01");
    await page.getByLabel(en["usage.to"], { exact: true }).fill("2026-10-31");
    await page.getByRole("button", { name: en["usage.show"] }).click();
    await page.getByText(en["usage.none"]).waitFor();
  });
});

describe("a key's page", () => {
  it("filters its requests by status, model and request id, and pages through them", async () => {
    const prod = keys.prod?.id as string;
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${prod}`);
    const range = page.getByTestId("requests-range");
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("1–25 of 29");
    await page.getByRole("button", { name: en["req.older"] }).click();
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("26–29 of 29");
    expect(await page.locator("tr[data-request-id]").count()).toBe(4);

    await page.getByLabel(en["req.filter.status"], { exact: true }).selectOption("error");
    await page.getByRole("button", { name: en["req.apply"] }).click();
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("1–1 of 1");
    const failed = page.locator("tr[data-request-id]");
    const failedId = (await failed.getAttribute("data-request-id")) as string;
    expect(await failed.innerText()).toContain("500");

    await page.getByLabel(en["req.filter.status"], { exact: true }).selectOption("");
    await page.getByLabel(en["req.filter.model"], { exact: true }).selectOption("demo-large");
    await page.getByRole("button", { name: en["req.apply"] }).click();
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("1–10 of 10");

    await page.getByRole("button", { name: en["req.clear"] }).click();
    await page.getByLabel(en["req.filter.id"]).fill(failedId.slice(-6));
    await page.getByRole("button", { name: en["req.apply"] }).click();
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("1–1 of 1");
    await page.screenshot({ path: join(SHOTS, "key-requests-filtered.png"), fullPage: true });
    await expectAccessible(page, "key page with filtered requests");
  });

  it("rotates a key whose new value then works, disables it (403 on the public port) and enables it", async () => {
    const batch = keys.batch as { id: string; key: string };
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${batch.id}`);
    await page.getByRole("heading", { level: 1, name: en["key.title"].replace("{name}", "batch") }).waitFor();
    await page.getByRole("button", { name: en["key.rotate"], exact: true }).click();
    await page.getByLabel(en["rotate.grace"]).selectOption("1h");
    await page.getByRole("button", { name: en["rotate.confirm"].replace("{name}", "batch") }).click();
    await page.getByRole("heading", { name: en["rotate.doneTitle"].replace("{name}", "batch") }).waitFor();
    const fresh = await page.locator("input.secret").inputValue();
    expect(fresh).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
    expect(await chat(fresh, "demo-small")).toBe(200);
    // The old value still works in its grace period.
    expect(await chat(batch.key, "demo-small")).toBe(200);
    await page.getByRole("button", { name: en["rotate.dismiss"] }).click();

    await page.getByRole("button", { name: en["key.disable"], exact: true }).click();
    await page.getByRole("button", { name: en["key.enable"], exact: true }).waitFor();
    const refused = await t.fetch("/v1/chat/completions", {
      key: fresh,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-small", messages: [] }),
    });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe("key_disabled");

    await page.getByRole("button", { name: en["key.enable"], exact: true }).click();
    await page.getByRole("button", { name: en["key.disable"], exact: true }).waitFor();
    expect(await chat(fresh, "demo-small")).toBe(200);
  });
  it("sets a key's limits on its page: over them the public port answers 429, and they can be removed", async () => {
    const dev = keys.dev as { id: string; key: string };
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${dev.id}`);
    await page.getByRole("heading", { level: 1, name: en["key.title"].replace("{name}", "dev") }).waitFor();
    const rpm = page.getByLabel(en["field.rpm"], { exact: true });
    await rpm.fill("1.5");
    await page.getByRole("button", { name: en["common.save"] }).click();
    await page.getByText(en["v.limit.rpm"]).waitFor();
    await rpm.fill("2");
    await page.getByRole("button", { name: en["common.save"] }).click();
    await page.getByText(en["key.saved"]).waitFor();
    expect((await t.store.keyService.show(dev.id)).limits.rpm).toBe(2);

    // The gateway's clock stands still, so the minute's two requests are the last ones it admits.
    expect(await chat(dev.key, "demo-small")).toBe(200);
    expect(await chat(dev.key, "demo-small")).toBe(200);
    const limited = await t.fetch("/v1/chat/completions", {
      key: dev.key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "demo-small", messages: [] }),
    });
    expect(limited.status).toBe(429);
    expect((await json(limited)).error.code).toBe("rate_limit_exceeded");

    await rpm.fill("");
    await page.getByRole("button", { name: en["common.save"] }).click();
    await page.getByText(en["key.saved"]).waitFor();
    expect((await t.store.keyService.show(dev.id)).limits.rpm).toBeNull();
    expect(await chat(dev.key, "demo-small")).toBe(200);
  });
  it("sets a budget and a threshold on a key's page, and the account's events show it crossed", async () => {
    const batch = keys.batch as { id: string; key: string };
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme/keys/${batch.id}`);
    await page.getByRole("heading", { level: 1, name: en["key.title"].replace("{name}", "batch") }).waitFor();
    // A request to demo-large reserves about 1 ₽ (its prompt's bytes as tokens), so the budget leaves room.
    await page.getByLabel(en["budgets.field.day"], { exact: true }).fill("3");
    await page.getByRole("button", { name: en["common.save"] }).click();
    await page.getByText(en["key.saved"]).waitFor();
    const section = page.getByRole("region", { name: en["keyAlerts.title"] });
    await section.getByLabel(en["keyAlerts.field"]).fill("40");
    await section.getByRole("button", { name: en["keyAlerts.save"] }).click();
    await section.getByText("40 % of the budget").waitFor();

    // Requests until the day's spend passes 40 % of the budget.
    const spent = async () => (await t.store.keyService.show(batch.id)).spent;
    for (let i = 0; i < 40 && (await spent()) < 1_200_000; i++) {
      expect(await chat(batch.key, "demo-large")).toBe(200);
      await t.gateway.settled();
    }
    expect(await spent()).toBeGreaterThanOrEqual(1_200_000);

    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme`);
    const crossed = page.locator("tr[data-event-id]", { hasText: "budget.threshold" });
    await crossed.waitFor();
    expect(await crossed.count()).toBe(1);
    expect(await crossed.innerText()).toContain(batch.id);
  });
});

describe("the operator's view", () => {
  it("totals every account, finds one by name and pages through all of them", async () => {
    await t.gateway.settled();
    await page.evaluate("sessionStorage.clear()");
    await signIn(ADMIN, en["op.title"]);
    const overview = await admin("/admin/v1/overview?limit=200", ADMIN);
    const accounts = await admin("/admin/v1/accounts", ADMIN);
    expect(overview.totals.accounts).toBe(OTHER_ACCOUNTS + 1);
    expect(micros(String(overview.totals.balance))).toBe(
      accounts.reduce((sum: number, a: { balance: number }) => sum + micros(String(a.balance)), 0),
    );
    const acme = await admin("/admin/v1/accounts/acme/usage");
    expect(overview.totals.month_cost).toBe(acme.totals.month.cost);

    const totals = plainSpaces(await page.getByTestId("operator-totals").innerText());
    expect(totals).toContain(String(OTHER_ACCOUNTS + 1));
    expect(totals).toContain(rub(overview.totals.balance));
    expect(totals).toContain(rub(overview.totals.month_cost));
    const range = page.getByTestId("accounts-range");
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe(`1–50 of ${OTHER_ACCOUNTS + 1}`);
    await page.getByRole("button", { name: en["op.next"] }).click();
    await expect
      .poll(async () => plainSpaces(await range.innerText()))
      .toBe(`51–${OTHER_ACCOUNTS + 1} of ${OTHER_ACCOUNTS + 1}`);

    await page.getByLabel(en["op.search"]).fill("corp");
    await page.getByRole("button", { name: en["op.find"] }).click();
    await expect.poll(async () => plainSpaces(await range.innerText())).toBe("1–1 of 1");
    const row = page.locator('tr[data-account-id="acme"]');
    expect(plainSpaces(await row.getByTestId("month-spend").innerText())).toContain(
      rub(acme.totals.month.cost),
    );
    await page.screenshot({ path: join(SHOTS, "operator-accounts.png") });
    await expectAccessible(page, "operator's accounts, searched");
  });

  it("ran without a console error, a page error or a CSP violation, and never put a token in a URL", () => {
    expect(problems).toEqual([]);
    for (const url of urls) {
      expect(url).not.toContain(ADMIN);
      expect(url).not.toContain(accountToken);
    }
  });
});
