// `npm run bench`: how much the gateway adds. It starts its own Redis, the demo model server, a bare
// http-proxy-3 pass-through and the gateway twice, with metrics on and off (each in its own process, as in
// production), then measures the paths interleaved, round after round, so that a machine's drift affects all
// of them alike:
//   - p50 and p99 latency at a fixed 500 requests/s, and the CPU time each request costs the serving process
//     (and Redis) meanwhile: steadier than latency on a shared machine, so it decides the metrics' cost,
//   - maximum throughput,
//   - time to first byte of a streamed chat completion,
//   - the gateway's peak memory while a 256 MiB response streams through it,
//   - the invalidation bound: how soon after a revoke or a disable returns the other gateway (both share the
//     Redis, as two replicas) stops admitting the key on its lease (invalidation.ts),
//   - and, once the servers have stopped, the CPU time metrics add to a request, and what each fast path into
//     a library saves against the library's public way (fast-paths.ts), measured in-process.
// Results are medians over the rounds. They are printed, and written into docs/benchmarks.md (between its
// generated-section markers, with the machine, the date and the command) unless BENCH_WRITE=0.
//
// BENCH_BASELINE=<another checkout>/dist/cli.js adds that build's gateway (metrics on) as one more path,
// measured interleaved with the others, for an A/B comparison of two versions; its figures are printed
// beside the gateway's, and the page is not written.

import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { closeRedis, connectRedis, createRedis } from "../src/store/redis.js";
import { openStores } from "../src/store/stores.js";
import { measureFastPaths } from "./fast-paths.js";
import { measureInvalidation } from "./invalidation.js";
import { firstByte, fixedRate, median, percentile, saturate, type Target } from "./load.js";
import { metricsMicrosPerRequest } from "./metrics-cost.js";
import {
  type BenchReport,
  benchCommand,
  currentCommit,
  describeMachine,
  type PathFigures,
  renderFigures,
  replaceGenerated,
} from "./report.js";
import { children, cpuMicros, createBenchKeys, forkServer, spawnGateway } from "./servers.js";

// Four rounds by default: with the order rotating, each path is measured once in each position.
const DEFAULTS = { rounds: 4, seconds: 5 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? DEFAULTS.rounds);
const SECONDS = Number(process.env.BENCH_SECONDS ?? DEFAULTS.seconds);
const BASELINE = process.env.BENCH_BASELINE;
const WRITE_PAGE = process.env.BENCH_WRITE !== "0" && BASELINE === undefined;
const PAGE = join(import.meta.dirname, "../docs/benchmarks.md");
const loadAtStart = loadavg()[0] ?? 0;
// A page without its markers would be found out only after the whole run: check it first.
if (WRITE_PAGE) replaceGenerated(readFileSync(PAGE, "utf8"), "");
const RATE = 500;
const TTFB_SAMPLES = 200;
/** Keys revoked or disabled under load on the other replica's lease, for the invalidation bound. */
const INVALIDATION_TRIALS = 20;
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

const redis = await startRedisServer();
children.push(redis.process);
const [upstreamPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
const upstreamProcess = await forkServer("upstream.ts", [String(upstreamPort)]);
const bareProcess = await forkServer("bare-proxy.ts", [String(barePort), upstream]);

const plainPort = await freePort();
const gatewayOptions = { redisUrl: redis.url, upstream };
const gateway = await spawnGateway({ ...gatewayOptions, port: gatewayPort, metricsEnabled: true });
const plainGateway = await spawnGateway({ ...gatewayOptions, port: plainPort, metricsEnabled: false });
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const baselinePort = await freePort();
const baseline = BASELINE
  ? await spawnGateway({ ...gatewayOptions, port: baselinePort, metricsEnabled: true, cli: BASELINE })
  : null;

const { key, limitedKey } = await createBenchKeys(redis.url);

/** A path to measure, and the process that serves it (whose CPU time is counted). */
const targets: Array<Target & { server: ChildProcess }> = [
  { name: "direct", url: upstream, headers: {}, server: upstreamProcess },
  { name: "bare proxy", url: `http://127.0.0.1:${barePort}`, headers: {}, server: bareProcess },
  { name: "gateway", url: gatewayUrl, headers: { authorization: `Bearer ${key}` }, server: gateway },
  {
    name: "gateway, per request",
    url: gatewayUrl,
    headers: { authorization: `Bearer ${limitedKey}` },
    server: gateway,
  },
  {
    name: "gateway, metrics off",
    url: `http://127.0.0.1:${plainPort}`,
    headers: { authorization: `Bearer ${key}` },
    server: plainGateway,
  },
  ...(baseline
    ? [
        {
          name: "baseline gateway",
          url: `http://127.0.0.1:${baselinePort}`,
          headers: { authorization: `Bearer ${key}` },
          server: baseline,
        },
      ]
    : []),
];

const results = new Map(
  targets.map((t) => [
    t.name,
    {
      p50: [] as number[],
      p99: [] as number[],
      cpu: [] as number[],
      redisCpu: [] as number[],
      rps: [] as number[],
      ttfb: [] as number[],
    },
  ]),
);

// Warm-up: connections, JIT, the gateway's key cache.
for (const t of targets) await fixedRate(t, BODY, RATE, 2);

for (let round = 1; round <= ROUNDS; round++) {
  process.stderr.write(`round ${round}/${ROUNDS}\n`);
  // The order rotates every round: a path measured right after another one's saturation run came out a few
  // percent slower, so no path may always follow the same one.
  const order = [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)];
  for (const t of order) {
    const cpu = [cpuMicros(t.server), cpuMicros(redis.process)];
    const latencies = await fixedRate(t, BODY, RATE, SECONDS);
    const r = results.get(t.name)!;
    r.cpu.push((cpuMicros(t.server) - (cpu[0] as number)) / latencies.length);
    r.redisCpu.push((cpuMicros(redis.process) - (cpu[1] as number)) / latencies.length);
    r.p50.push(percentile(latencies, 0.5));
    r.p99.push(percentile(latencies, 0.99));
  }
  for (const t of order) results.get(t.name)!.rps.push(await saturate(t, BODY, WORKERS, SECONDS));
  for (const t of order)
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

// Invalidation: the two gateways are two replicas of one Redis; a key is revoked or disabled while the second
// serves it from its lease.
const changes = createRedis({ url: redis.url }, "cli");
await connectRedis(changes, { url: redis.url });
const invalidation = await measureInvalidation({
  context: openStores(changes, { prefix: "bench:", timezone: "UTC" }),
  accountId: "bench",
  gateways: [gatewayUrl, `http://127.0.0.1:${plainPort}`],
  trials: INVALIDATION_TRIALS,
});
closeRedis(changes);

const row = (name: string): PathFigures => {
  const r = results.get(name)!;
  return {
    p50: median(r.p50),
    p99: median(r.p99),
    cpu: median(r.cpu),
    redisCpu: name.startsWith("gateway") ? median(r.redisCpu) : null,
    rps: median(r.rps),
    ttfb: median(r.ttfb),
  };
};

for (const child of children) child.kill("SIGTERM");
await redis.stop();

const report: BenchReport = {
  date: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
  commit: currentCommit(join(import.meta.dirname, "..")),
  command: benchCommand(ROUNDS, SECONDS, DEFAULTS),
  rounds: ROUNDS,
  seconds: SECONDS,
  rate: RATE,
  machine: describeMachine(loadAtStart),
  direct: row("direct"),
  bare: row("bare proxy"),
  gateway: row("gateway"),
  metricsOff: row("gateway, metrics off"),
  perRequest: row("gateway, per request"),
  metricsMicros: metricsMicrosPerRequest(),
  rssBefore: before,
  rssAfter: after,
  invalidation,
  fastPaths: await measureFastPaths(SECONDS / 2),
};
const figures = renderFigures(report);
console.log(`\n${figures}\n`);
if (baseline) {
  const a = row("baseline gateway");
  const b = report.gateway;
  const change = (x: number, y: number) => `${y >= x ? "+" : ""}${(((y - x) / x) * 100).toFixed(1)} %`;
  console.log(
    `A/B, baseline ${BASELINE} → this build (gateway, metrics on):\n` +
      `  CPU per request  ${a.cpu.toFixed(0)} → ${b.cpu.toFixed(0)} µs (${change(a.cpu, b.cpu)})\n` +
      `  p50              ${a.p50.toFixed(2)} → ${b.p50.toFixed(2)} ms\n` +
      `  p99              ${a.p99.toFixed(2)} → ${b.p99.toFixed(2)} ms\n` +
      `  max req/s        ${a.rps.toFixed(0)} → ${b.rps.toFixed(0)} (${change(a.rps, b.rps)})\n` +
      `  stream TTFB      ${a.ttfb.toFixed(2)} → ${b.ttfb.toFixed(2)} ms`,
  );
}
if (WRITE_PAGE) {
  writeFileSync(PAGE, replaceGenerated(readFileSync(PAGE, "utf8"), figures));
  console.log(`written to ${PAGE}`);
}

process.exit(0);
