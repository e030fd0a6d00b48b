// The version the gateway reports (`--version`, the start-up line, OpenTelemetry's service.version).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { version } from "../../src/core/version.js";

describe("version", () => {
  it("is package.json's", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(version()).toBe(pkg.version);
    expect(version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
