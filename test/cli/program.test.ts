// The program loads the management commands (and the services and schemas they alone use) only when the
// command line names one of them: the serving process keeps none of them in its resident set
// (docs/benchmarks.md, "What the resident set is"). The built CLI runs as a process whose imports a
// resolution hook names on stderr (test/helpers/module-log/); `keys --help` shows the hook would see them.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { spawnGateway } from "../helpers/gateway-process.js";
import { testPrefix } from "../helpers/store.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");
const HOOK = pathToFileURL(join(import.meta.dirname, "../helpers/module-log/register.mjs")).href;
const MANAGEMENT = "/dist/cli/(management-commands|accounts-commands|keys-commands|users-commands)\\.js";
const hooked = { NODE_OPTIONS: `--import=${HOOK}`, MODULE_LOG_PATTERN: MANAGEMENT };
const importsIn = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("imports "));

describe("the modules the program loads", () => {
  it("loads none of the management commands for serve", async () => {
    const gateway = await spawnGateway(
      { redis: { url: inject("redisUrl"), prefix: testPrefix() }, upstream: { url: "http://127.0.0.1:9" } },
      hooked,
    );
    expect(await gateway.stop()).toBe(0);
    expect(importsIn(gateway.stderr())).toEqual([]);
  });

  it("loads them for a management command (the hook sees their imports)", async () => {
    const child = spawn(process.execPath, [CLI, "keys", "--help"], {
      env: { ...process.env, ...hooked },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(child, "close");
    expect(code).toBe(0);
    expect(importsIn(stderr).some((line) => line.endsWith("/dist/cli/management-commands.js"))).toBe(true);
  });
});
