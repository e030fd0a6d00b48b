// Debian's Chromium for the browser tests, started headless by playwright-core with what keeps it quiet and
// off the network. Tests that need it fail with the command that installs it rather than skip.

import { existsSync } from "node:fs";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's Chromium with apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A page of a new browser context, with what it did wrong and where it went collected as it runs. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings, page errors and Content-Security-Policy violations. */
  problems: string[];
  /** Every URL the page's main frame was at. */
  urls: string[];
}

/**
 * Opens a page on which every console error or warning, page error and CSP violation is recorded in
 * `problems`, and every URL the page goes to in `urls` (to prove no token ever reaches one); clipboard access
 * for `origin` when given (the copy buttons).
 */
export async function watchedPage(
  browser: Browser,
  options: BrowserContextOptions & { clipboardOrigin?: string } = {},
): Promise<WatchedPage> {
  const { clipboardOrigin, ...contextOptions } = options;
  const context = await browser.newContext({
    locale: "en-US",
    viewport: { width: 1360, height: 900 },
    ...contextOptions,
  });
  if (clipboardOrigin) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: clipboardOrigin });
  }
  // A string: this file is type-checked without the DOM library.
  await context.addInitScript(
    `document.addEventListener("securitypolicyviolation", (event) =>
      console.error("CSP violation: " + event.violatedDirective));`,
  );
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  const urls: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) urls.push(frame.url());
  });
  return { context, page, problems, urls };
}
