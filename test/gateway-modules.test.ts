// What a gateway loads depends on what its configuration uses: without an admin listener it loads none of the
// admin API, the dashboard, their schemas or the sign-in (openid-client, argon2), which a sidecar beside every
// model server would otherwise hold in memory for nothing (docs/benchmarks.md, memory). The built gateway runs
// as a process whose imports of those modules a resolution hook names on stderr (test/helpers/module-log/);
// the same process with an admin token names them, which shows the hook would see them. Nor does the serving
// process load the configuration's validation (zod, the schema, yaml): `serve` validates in a worker thread
// that ends once it has answered, whose imports the hook names as that thread's.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { spawnGateway } from "./helpers/gateway-process.js";
import { testPrefix } from "./helpers/store.js";

const CLI = join(import.meta.dirname, "../dist/cli.js");
const HOOK = pathToFileURL(join(import.meta.dirname, "helpers/module-log/register.mjs")).href;
const ADMIN_AND_SIGN_IN = "/dist/admin/|/dist/identity/(?!settings|provider-secrets)|/openid-client/|/argon2";
const VALIDATION = "/zod/|/dist/config/schema\\.js|/yaml/";

/** The lines of the hook on stderr: "imports <url>" for the main thread, "worker <id> imports <url>". */
const importLines = (stderr: string) =>
  stderr.split("\n").filter((line) => /^(worker \d+ )?imports /.test(line));

async function servingImports(admin: Record<string, unknown>, pattern: string): Promise<string[]> {
  const gateway = await spawnGateway(
    {
      redis: { url: inject("redisUrl"), prefix: testPrefix() },
      upstream: { url: "http://127.0.0.1:9" },
      admin: { host: "127.0.0.1", port: 0, ...admin },
    },
    { NODE_OPTIONS: `--import=${HOOK}`, MODULE_LOG_PATTERN: pattern, TUNNEL_ADMIN_TOKEN: "" },
  );
  // A request through the forwarder, the observer and the log line, refused for its key.
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer sk-tunnel-${"0".repeat(64)}` },
    body: "{}",
  });
  expect(res.status).toBe(401);
  await res.text();
  expect(await gateway.stop()).toBe(0);
  return importLines(gateway.stderr());
}

const adminImports = (admin: Record<string, unknown>) => servingImports(admin, ADMIN_AND_SIGN_IN);

/** Runs the built CLI with `args`; its exit code and stderr. */
async function runBuiltCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(child, "close");
  return { code: code as number | null, stderr };
}

describe("the modules a gateway loads", () => {
  it("loads none of the admin API or the sign-in while no admin listener opens", async () => {
    expect(await adminImports({})).toEqual([]);
  });

  it("loads them when an admin token opens the admin listener (the hook sees their imports)", async () => {
    const imports = await adminImports({ token: "a-token-long-enough-for-admin" });
    expect(imports.some((line) => line.includes("/dist/admin/admin-server.js"))).toBe(true);
    expect(imports.some((line) => line.includes("/openid-client/"))).toBe(true);
  });
});

describe("the modules of the configuration's validation", () => {
  it("are loaded by the worker thread that validates, never by the serving thread", async () => {
    const imports = await servingImports({}, VALIDATION);
    expect(imports.filter((line) => line.startsWith("imports "))).toEqual([]);
    // The hook sees them, in the worker thread.
    const inWorker = (pattern: RegExp) =>
      imports.some((line) => /^worker \d+ imports /.test(line) && pattern.test(line));
    expect(inWorker(/\/dist\/config\/schema\.js$/)).toBe(true);
    expect(inWorker(/\/zod\//)).toBe(true);
    expect(inWorker(/\/yaml\//)).toBe(true);
  });

  it("are loaded by a management command, which validates in its own thread", async () => {
    const { code, stderr } = await runBuiltCli(["accounts", "list", "--json"], {
      NODE_OPTIONS: `--import=${HOOK}`,
      MODULE_LOG_PATTERN: VALIDATION,
      TUNNEL_CONFIG: "",
      TUNNEL_REDIS_URL: inject("redisUrl"),
      TUNNEL_REDIS_PREFIX: testPrefix(),
    });
    expect(code).toBe(0);
    const imports = importLines(stderr);
    expect(
      imports.some((line) => line.startsWith("imports ") && line.endsWith("/dist/config/schema.js")),
    ).toBe(true);
    expect(imports.some((line) => line.startsWith("imports ") && line.includes("/zod/"))).toBe(true);
  });
});
