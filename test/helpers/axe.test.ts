// The axe helper against pages made to pass and to fail, so that a dashboard check passing means something.

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/admin/static.js";
import { axeViolations, expectAccessible } from "./axe.js";
import { launchChromium } from "./chromium.js";

// Served under the dashboard's own CSP, so the check is shown to work where the dashboard tests use it.
const ORIGIN = "http://axe.test";
const page = (body: string) =>
  `<!doctype html><html lang="en"><head><title>axe</title></head><body><main><h1>Check</h1>${body}</main></body></html>`;
const CLEAN = page(`<p>Fine.</p><button type="button">Save</button>`);
const BROKEN = page(
  `<p id="faint">Hard to read.</p><button type="button" id="unnamed"></button><input type="text" id="unlabelled">` +
    `<link rel="stylesheet" href="/broken.css">`,
);
const BROKEN_CSS = "#faint { color: #bbb; background: #fff; }";

let browser: Browser;
let tab: Page;
/** The page's CSP violations, as its listener reports them (Chromium's own console line is left out). */
const cspViolations: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  tab = await browser.newPage();
  tab.on("console", (message) => {
    if (message.text().startsWith("CSP ")) cspViolations.push(message.text());
  });
  await tab.addInitScript(
    `document.addEventListener("securitypolicyviolation", (event) => console.error("CSP " + event.violatedDirective));`,
  );
  await tab.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    const [body, type] =
      path === "/broken.css"
        ? [BROKEN_CSS, "text/css"]
        : [path === "/broken" ? BROKEN : CLEAN, "text/html; charset=utf-8"];
    return route.fulfill({
      body,
      contentType: type,
      headers: { "content-security-policy": CONTENT_SECURITY_POLICY },
    });
  });
});

afterAll(async () => {
  await browser?.close();
});

describe("the axe check", () => {
  it("passes a page without violations, under the dashboard's CSP and without breaking it", async () => {
    await tab.goto(`${ORIGIN}/`);
    await expectAccessible(tab, "clean page");
    expect(cspViolations).toEqual([]);
    // The policy is in force: the <script> that axe is not injected as would have been refused.
    await tab.addScriptTag({ content: "window.inline = true" }).catch(() => undefined);
    await expect.poll(() => cspViolations).toEqual([expect.stringMatching(/^CSP script-src/)]);
    expect(await tab.evaluate("window.inline")).toBeUndefined();
    cspViolations.length = 0;
  });

  it("fails listing each serious or critical violation with its rule, impact, elements and help", async () => {
    await tab.goto(`${ORIGIN}/broken`);
    const found = await axeViolations(tab);
    expect(found.map((v) => v.id)).toEqual(
      expect.arrayContaining(["button-name", "color-contrast", "label"]),
    );
    const failure = await expectAccessible(tab, "broken page").then(
      () => new Error("passed"),
      (error: Error) => error,
    );
    expect(failure.message).toMatch(/^broken page: 3 serious or critical accessibility violation\(s\)\n/);
    expect(failure.message).toContain("- button-name (critical): Buttons must have discernible text");
    expect(failure.message).toContain("    #unnamed\n");
    expect(failure.message).toContain(
      "- color-contrast (serious): Elements must meet minimum color contrast",
    );
    expect(failure.message).toMatch(/ {4}#faint\n.*insufficient color contrast of 1\.\d+/);
    expect(failure.message).toContain("- label (critical): Form elements must have labels");
    expect(failure.message).toContain("    #unlabelled\n");
    expect(failure.message).toContain("<https://dequeuniversity.com/rules/axe/");
    expect(cspViolations).toEqual([]);
  });
});
