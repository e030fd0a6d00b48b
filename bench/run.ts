// `npm run bench`: how much the gateway adds. It starts its own Redis, the demo model server, a bare
// http-proxy-3 pass-through and the gateway (each in its own process, as in production), then measures
// the three paths interleaved, round after round, so that a machine's drift affects all of them alike:
//   - p50 and p99 latency at a fixed 500 requests/s,
//   - maximum throughput,
//   - time to first byte of a streamed chat completion,
//   - the gateway's peak memory while a 256 MiB response streams through it.
// Results are medians over the rounds; the README quotes them.

import { type ChildProcess, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { AccountService } from "../src/services/accounts.js";
import { buildServiceContext } from "../src/services/context.js";
import { KeyService } from "../src/services/keys.js";
import type { Actor } from "../src/store/audit-store.js";
import { closeRedis, connectRedis, createRedis } from "../src/store/redis.js";
import { firstByte, fixedRate, median, percentile, saturate, type Target } from "./load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = 500;
const TTFB_SAMPLES = 200;
const WORKERS = 64;
const BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 16,
  messages: [{ role: "user", content: "Say something short." }],
});
const STREAM_BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 16,
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

const children: ChildProcess[] = [];
const here = import.meta.dirname;

async function forkServer(script: string, args: string[]): Promise<void> {
  // Every Node server runs with the flags of the gateway's container image, so the paths compare fairly.
  const child = fork(join(here, script), args, {
    execArgv: ["--import", "tsx"],
    stdio: "ignore",
    env: { ...process.env, NODE_OPTIONS: "--max-semi-space-size=64" },
  });
  children.push(child);
  await once(child, "message");
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} did not become ready`);
}

const redis = await startRedisServer();
const [upstreamPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
await forkServer("upstream.ts", [String(upstreamPort)]);
await forkServer("bare-proxy.ts", [String(barePort), upstream]);

async function spawnGateway(port: number, metricsEnabled: boolean): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), "tunnel-bench-")), "config.yaml");
  writeFileSync(
    file,
    stringify({
      listen: { host: "127.0.0.1", port },
      metrics: { enabled: metricsEnabled, host: "127.0.0.1", port: 0 },
      upstream: { url: upstream },
      redis: { url: redis.url, prefix: "bench:" },
      pricing: { default: { input: 1, output: 1 } },
    }),
  );
  // The gateway runs with the Node flags its container image sets (see Dockerfile).
  const gateway = spawn(process.execPath, [join(here, "../dist/cli.js"), "serve", "--config", file], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, TUNNEL_CONFIG: "", NODE_OPTIONS: "--max-semi-space-size=64" },
  });
  children.push(gateway);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url);
  return url;
}

const plainPort = await freePort();
const gatewayUrl = await spawnGateway(gatewayPort, true);
const plainGatewayUrl = await spawnGateway(plainPort, false);
const gateway = children.at(-2) as ChildProcess;

const admin = createRedis({ url: redis.url }, "cli");
await connectRedis(admin, { url: redis.url });
const context = buildServiceContext(admin, { prefix: "bench:", timezone: "UTC" });
const operator: Actor = { kind: "cli" };
await new AccountService(context).create({ id: "bench", balance: "999999999" }, operator);
const { value: key } = await new KeyService(context).create({ accountId: "bench", name: "bench" }, operator);
closeRedis(admin);

const targets: Target[] = [
  { name: "direct", url: upstream, headers: {} },
  { name: "bare proxy", url: `http://127.0.0.1:${barePort}`, headers: {} },
  { name: "gateway", url: gatewayUrl, headers: { authorization: `Bearer ${key}` } },
  { name: "gateway, metrics off", url: plainGatewayUrl, headers: { authorization: `Bearer ${key}` } },
];

const results = new Map(
  targets.map((t) => [
    t.name,
    { p50: [] as number[], p99: [] as number[], rps: [] as number[], ttfb: [] as number[] },
  ]),
);

// Warm-up: connections, JIT, the gateway's key cache.
for (const t of targets) await fixedRate(t, BODY, RATE, 2);

for (let round = 1; round <= ROUNDS; round++) {
  process.stderr.write(`round ${round}/${ROUNDS}\n`);
  for (const t of targets) {
    const latencies = await fixedRate(t, BODY, RATE, SECONDS);
    const r = results.get(t.name)!;
    r.p50.push(percentile(latencies, 0.5));
    r.p99.push(percentile(latencies, 0.99));
  }
  for (const t of targets) results.get(t.name)!.rps.push(await saturate(t, BODY, WORKERS, SECONDS));
  for (const t of targets)
    results.get(t.name)!.ttfb.push(median(await firstByte(t, STREAM_BODY, TTFB_SAMPLES)));
}

// Memory: the gateway's peak resident set while 256 MiB stream through it.
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
const before = peakRssMiB(gateway.pid as number);
await new Promise<void>((resolve, reject) => {
  const req = request(`${gatewayUrl}/v1/large`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
  });
  req.on("response", (res) => {
    res.on("end", resolve);
    res.resume();
  });
  req.on("error", reject);
  req.end('{"model":"demo-small"}');
});
const after = peakRssMiB(gateway.pid as number);

const row = (name: string) => {
  const r = results.get(name)!;
  return { name, p50: median(r.p50), p99: median(r.p99), rps: median(r.rps), t50: median(r.ttfb) };
};
const direct = row("direct");
const bare = row("bare proxy");
const gw = row("gateway");
const plain = row("gateway, metrics off");
const fmt = (n: number) => n.toFixed(2);

console.log(
  `\ntunnel-gateway benchmark — ${ROUNDS} interleaved rounds of ${SECONDS} s, Node ${process.version}\n`,
);
console.log("path                  p50 @500/s  p99 @500/s  max req/s  stream TTFB p50");
for (const r of [direct, bare, gw, plain]) {
  console.log(
    `${r.name.padEnd(21)} ${fmt(r.p50).padStart(7)} ms  ${fmt(r.p99).padStart(7)} ms  ${r.rps.toFixed(0).padStart(9)}  ${fmt(r.t50).padStart(9)} ms`,
  );
}
console.log(`
gateway over direct:   +${fmt(gw.p50 - direct.p50)} ms at p50 (target ≤ 1), +${fmt(gw.p99 - direct.p99)} ms at p99 (target ≤ 5)
gateway throughput:    ${((gw.rps / bare.rps) * 100).toFixed(0)}% of the bare proxy (target ≥ 70%)
stream TTFB added:     +${fmt(gw.t50 - direct.t50)} ms at p50 over direct (target ≤ 1)
metrics cost:          +${fmt(gw.p50 - plain.p50)} ms at p50, throughput ${((gw.rps / plain.rps) * 100).toFixed(0)}% of the gateway without metrics (target: overhead at most 5% worse)
gateway memory:        peak RSS ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after streaming a 256 MiB response
`);

for (const child of children) child.kill("SIGTERM");
await redis.stop();
process.exit(0);
