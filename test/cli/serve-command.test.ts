// `tunnel-gateway serve`'s flags: each overrides its one setting (and its TUNNEL_* variable), ports read as
// numbers, and a bad value refused naming the flag and the setting before anything starts. (Running the
// gateway until a signal is run-gateway.test.ts and the binary's test/e2e/cli.test.ts.) The command is the
// built one (dist/): it validates the configuration in a worker thread, which cannot load TypeScript.

import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type * as ServeCommand from "../../src/cli/serve-command.js";
import type { ConfigError as SourceConfigError } from "../../src/config/config-error.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";

const BUILT = join(import.meta.dirname, "../../dist");
const { serveCommand } = (await import(join(BUILT, "cli/serve-command.js"))) as typeof ServeCommand;
const { ConfigError } = (await import(join(BUILT, "config/config-error.js"))) as {
  ConfigError: typeof SourceConfigError;
};

beforeEach(() => {
  stubCliEnvironment();
  vi.stubEnv("TUNNEL_UPSTREAM_URL", "http://127.0.0.1:8000");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const serve = (...args: string[]) => runCli(serveCommand, ["serve", ...args]);

async function refusal(...args: string[]): Promise<string> {
  const run = await serve(...args);
  expect(run.error).toBeInstanceOf(ConfigError);
  return (run.error as Error).message;
}

describe("serve", () => {
  it("names the flag and the setting of a bad value", async () => {
    expect(await refusal("--port", "eighty")).toBe(
      "invalid configuration: --port: listen.port: must be a number",
    );
    expect(await refusal("--metrics-port", "70000")).toBe(
      "invalid configuration: --metrics-port: metrics.port: must be at most 65535",
    );
    expect(await refusal("--admin-port", "-1")).toBe(
      "invalid configuration: --admin-port: admin.port: must be at least 0",
    );
    expect(await refusal("--upstream", "ftp://models")).toBe(
      "invalid configuration: --upstream: upstream.url: must be an http:// or https:// URL",
    );
    expect(await refusal("--host", "")).toBe("invalid configuration: --host: listen.host: must not be empty");
  });

  it("names --redis, which every command takes, for a bad Redis URL", async () => {
    expect(await refusal("--redis", "http://r:6379")).toBe(
      "invalid configuration: --redis: redis.url: must be a redis:// or rediss:// URL",
    );
  });

  it("reads ports as numbers, so that only the bad setting is reported", async () => {
    const message = await refusal(
      "--port",
      "8080",
      "--metrics-port",
      "9464",
      "--admin-port",
      "9465",
      "--upstream",
      "ftp://m",
    );
    expect(message).toBe(
      "invalid configuration: --upstream: upstream.url: must be an http:// or https:// URL",
    );
  });

  it("puts a flag over the variable for the same setting", async () => {
    vi.stubEnv("TUNNEL_PORT", "8080");
    expect(await refusal("--port", "x")).toBe("invalid configuration: --port: listen.port: must be a number");
    vi.stubEnv("TUNNEL_UPSTREAM_URL", "ftp://from-the-environment");
    expect(await refusal("--upstream", "ftp://from-the-flag")).toMatch(
      /^invalid configuration: --upstream: /,
    );
  });

  it("refuses a flag given twice as a usage error", async () => {
    expect(usageOf(await serve("--port", "1", "--port", "2"))).toMatchObject({
      exitCode: 2,
      message: "error: option '--port <n>' may be given only once",
    });
  });
});
