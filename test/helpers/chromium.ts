// Debian's Chromium for the browser tests, started headless by playwright-core with what keeps it quiet and
// off the network. Tests that need it fail with the command that installs it rather than skip.

import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

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
