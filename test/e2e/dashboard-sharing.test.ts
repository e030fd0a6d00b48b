// The dashboard's view of an account's share of a full model server, in a real browser (Debian's Chromium,
// playwright-core) against a real gateway with upstream.maxInFlight set and a model server that holds what it
// takes: the account's requests waiting on the replica, the operator changing its weight, the account's owner
// seeing the settings without the form, and the waits of its recent requests once they are served. No console
// error, and the view passes the axe check (test/helpers/axe.ts).

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES } from "../../src/admin/ui/i18n/lookup.js";
import { answerDemoRequest } from "../../src/demo/demo-upstream.js";
import { ACTOR } from "../helpers/actor.js";
import { expectAccessible } from "../helpers/axe.js";
import { launchChromium, watchedPage } from "../helpers/chromium.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const ROOT = join(import.meta.dirname, "../..");
const ADMIN = "admin-token-0123456789";
const en = MESSAGES.en;

let t: TestGateway;
let upstream: StubUpstream;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let accountToken: string;
const held: (() => void)[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/admin/ui/index.html")))
    throw new Error("dist/admin/ui is missing: run `npm run build` (npm test does it for you)");
  upstream = await startStubUpstream();
  upstream.handle(async (req, res, body) => {
    if (req.method !== "POST") return false;
    await new Promise<void>((resolve) => held.push(resolve));
    await answerDemoRequest(req, res, body);
    return true;
  });
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { admin: { token: ADMIN }, upstream: { maxInFlight: 1 } },
  });
  await t.store.accountService.create({ id: "acme", name: "Acme", balance: "100" }, ACTOR);
  accountToken = (await t.store.accountService.createToken("acme", ACTOR)).token;
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(browser));
}, 30_000);

afterAll(async () => {
  for (const release of held.splice(0)) release();
  await browser?.close();
  await t?.close();
  await upstream?.close();
});

async function signIn(token: string, heading: string): Promise<void> {
  await page.goto(`${t.gateway.adminUrl}/`);
  await page.getByLabel(en["login.token"]).fill(token);
  await page.getByRole("button", { name: en["login.submit"] }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

describe("an account's share of a full model server in the dashboard", () => {
  it("shows what waits now, lets the operator change the weight, and shows the owner the settings and the waits", async () => {
    const { value } = await t.store.keyService.create({ accountId: "acme", name: "batch" }, ACTOR);
    const body = JSON.stringify({
      model: "demo-small",
      max_tokens: 4,
      messages: [{ role: "user", content: "hi" }],
    });
    const requests = Array.from({ length: 3 }, () =>
      t.fetch("/v1/chat/completions", { method: "POST", key: value, body }).then((res) => res.text()),
    );
    await waitUntil(() => held.length === 1, "the first request to reach the model server");

    await signIn(ADMIN, "All accounts");
    await page.goto(`${t.gateway.adminUrl}/#/accounts/acme`);
    const section = page.getByRole("region", { name: en["sharing.title"] });
    await section.getByTestId("places").waitFor();
    await expect.poll(async () => section.getByTestId("account-waiting").innerText()).toBe("2");
    expect(await section.getByTestId("places").innerText()).toBe("1 of 1");

    const form = section.getByTestId("sharing-form");
    await form.getByLabel(en["sharing.weight"]).fill("0");
    await form.getByRole("button", { name: en["sharing.save"] }).click();
    await form.getByText(en["v.weight"]).waitFor();
    await form.getByLabel(en["sharing.weight"]).fill("3");
    await form.getByLabel(en["sharing.maxWait"]).fill("5000");
    await form.getByRole("button", { name: en["sharing.save"] }).click();
    await form.getByText(en["sharing.saved"]).waitFor();
    expect(await t.store.accounts.require("acme")).toMatchObject({ weight: 3, maxWaitMs: 5000 });
    await expectAccessible(page, "an account's sharing, as the operator sees it");

    for (let served = 0; served < 3; served++) {
      await waitUntil(() => held.length > 0, "a request at the model server");
      (held.shift() as () => void)();
    }
    await Promise.all(requests);
    await t.gateway.settled();

    // The account's owner, in a browser of their own.
    const operatorProblems = problems;
    ({ page, problems } = await watchedPage(browser));
    await signIn(accountToken, "Account acme");
    const owners = page.getByRole("region", { name: en["sharing.title"] });
    await owners.getByTestId("weight").waitFor();
    expect(await owners.getByTestId("weight").innerText()).toBe("3");
    expect(await owners.getByTestId("sharing-form").count()).toBe(0);
    await expect.poll(async () => owners.getByTestId("recent-waited").innerText()).toBe("2 of 3");
    await expectAccessible(page, "an account's sharing, as its owner sees it");
    expect([...operatorProblems, ...problems]).toEqual([]);
  });
});
