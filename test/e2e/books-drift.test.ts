// A settlement's effect deleted in Redis — its account's keys put back as they were before it, as a failover
// that lost the write or a restore from an older backup leaves them — is named by account and µ₽ three ways:
// the replica's error line, its drift metric, and `tunnel-gateway books check` reading the request log
// (`dist/cli.js`, built by `npm test`), from a file and from stdin. Another account's books stay quiet.

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { RealClock } from "../helpers/clock.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { chat } from "../helpers/leases.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");
const temporaryDirectory = temporaryDirectories("tunnel-books-");

let upstream: StubUpstream | undefined;
let t: TestGateway | undefined;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
  t = upstream = undefined;
});

type Snapshot = Map<string, { dump: Buffer; ttl: number }>;

/** Every key of the account's hash tag, dumped with its time to live. */
async function snapshot(redis: Redis, pattern: string): Promise<Snapshot> {
  const taken: Snapshot = new Map();
  for (const key of await redis.keys(pattern)) {
    const dump = await redis.dumpBuffer(key);
    if (dump) taken.set(key, { dump, ttl: Math.max(0, await redis.pttl(key)) });
  }
  return taken;
}

/** Puts the account's keys back as `taken` had them: what was made since is deleted. */
async function restore(redis: Redis, pattern: string, taken: Snapshot): Promise<void> {
  for (const key of await redis.keys(pattern)) if (!taken.has(key)) await redis.del(key);
  for (const [key, { dump, ttl }] of taken) await redis.restore(key, ttl, dump, "REPLACE");
}

function booksCheck(
  args: string[],
  env: Record<string, string>,
  stdin = "",
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "books", "check", ...args], {
      env: { ...process.env, ...env, TUNNEL_CONFIG: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("a settlement's effect lost in Redis", () => {
  it("is named by account and µ₽ in the replica's error line, its metric and the books check", async () => {
    upstream = await startStubUpstream();
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      clock: new RealClock(),
      config: { pricing: PRICING, billing: { driftCheckSeconds: 1 } },
    });
    const gateway = t;
    const acme = await gateway.newKey({ accountId: "acme", budget: "50", period: "day" });
    const globex = await gateway.newKey({ accountId: "globex" });
    const send = async (key: string) => {
      const res = await chat(gateway, key);
      expect(res.status).toBe(200);
      await res.text();
    };
    for (let i = 0; i < 3; i++) {
      await send(acme.value);
      await send(globex.value);
    }
    await gateway.gateway.settled();
    const redis = gateway.store.redis as Redis;
    const pattern = `${gateway.config.redis.prefix}{a:acme}*`;
    const before = await snapshot(redis, pattern);
    await send(acme.value);
    await gateway.gateway.settled();
    const lost = gateway.logs.filter((line) => line.msg === "request" && line.account === "acme").at(-1);
    const cost = Math.round((lost?.cost_rub as number) * 1e6);
    expect(cost).toBeGreaterThan(0);
    await restore(redis, pattern, before);

    await waitUntil(
      () => gateway.logs.some((line) => line.level === 50 && line.account === "acme"),
      "the books watch to report the lost charge",
      10_000,
    );
    const drift = gateway.logs.filter((line) => line.level === 50);
    expect(drift).toEqual([
      expect.objectContaining({
        msg: `books drift on account acme: Redis holds ${cost} µ₽ less than this replica charged`,
        account: "acme",
        difference_micros: -cost,
      }),
    ]);
    const metrics = await (await fetch(`${gateway.gateway.metricsUrl}/metrics`)).text();
    expect(metrics).toContain(`tunnel_gateway_books_drift_rubles{account="acme"} ${-cost / 1e6}`);
    expect(metrics).not.toContain('tunnel_gateway_books_drift_rubles{account="globex"}');

    // The operator's statement, from the log lines the gateway wrote (with a line of another kind among them).
    const log = [...gateway.logs.map((line) => JSON.stringify(line)), ""].join("\n");
    const file = join(temporaryDirectory(), "requests.log");
    writeFileSync(file, log);
    const env = {
      TUNNEL_REDIS_URL: gateway.config.redis.url,
      TUNNEL_REDIS_PREFIX: gateway.config.redis.prefix,
    };
    const fromFile = await booksCheck(["--log", file], env);
    const day = new Date().toISOString().slice(0, 10);
    expect(fromFile.stderr).toBe("");
    expect(fromFile.code).toBe(1);
    const logged = 4 * cost;
    const kept = 3 * cost;
    const lines = fromFile.stdout.trim().split("\n");
    expect(lines).toContain(
      `account acme, key ${acme.id}, day ${day}: log ${logged} µ₽, Redis ${kept} µ₽, Redis − log ${-cost} µ₽`,
    );
    expect(lines).toContain(
      `account acme, key ${acme.id}, day window from ${day}T00:00:00.000Z: log ${logged} µ₽, Redis ${kept} µ₽, Redis − log ${-cost} µ₽`,
    );
    // Every difference is the lost charge (on the 1st of a month, the account's month too); globex agrees.
    const differences = lines.filter((line) => line.startsWith("account "));
    for (const line of differences)
      expect(line).toMatch(new RegExp(`^account acme, .*Redis − log ${-cost} µ₽$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^${differences.length} difference\\(s\\) in 2 account\\(s\\)`));
    const fromStdin = await booksCheck(["--json"], env, log);
    expect(fromStdin.code).toBe(1);
    expect(JSON.parse(fromStdin.stdout).differences).toContainEqual({
      account_id: "acme",
      key_id: acme.id,
      day,
      log_micros: logged,
      redis_micros: kept,
      difference_micros: -cost,
    });
  });
});
