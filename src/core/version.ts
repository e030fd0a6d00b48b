// The gateway's version, as package.json gives it: the CLI's --version, and the service.version of its telemetry.

import { readFileSync } from "node:fs";

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
