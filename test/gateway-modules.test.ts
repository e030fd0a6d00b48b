// What a gateway loads depends on what its configuration uses: without an admin listener it loads none of the
// admin API, the dashboard, their schemas or the sign-in (openid-client, argon2), which a sidecar beside every
// model server would otherwise hold in memory for nothing (docs/benchmarks.md, memory). The built gateway runs
// as a process whose imports of those modules a resolution hook names on stderr (test/helpers/module-log/);
// the same process with an admin token names them, which shows the hook would see them.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { spawnGateway } from "./helpers/gateway-process.js";
import { testPrefix } from "./helpers/store.js";

const HOOK = pathToFileURL(join(import.meta.dirname, "helpers/module-log/register.mjs")).href;
const ADMIN_AND_SIGN_IN = "/dist/admin/|/dist/identity/(?!settings|provider-secrets)|/openid-client/|/argon2";

async function adminImports(admin: Record<string, unknown>): Promise<string[]> {
  const gateway = await spawnGateway(
    {
      redis: { url: inject("redisUrl"), prefix: testPrefix() },
      upstream: { url: "http://127.0.0.1:9" },
      admin: { host: "127.0.0.1", port: 0, ...admin },
    },
    { NODE_OPTIONS: `--import=${HOOK}`, MODULE_LOG_PATTERN: ADMIN_AND_SIGN_IN, TUNNEL_ADMIN_TOKEN: "" },
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
  return gateway
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("imports "));
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
