// `npm run bench:ab`: this build against another (BENCH_BASELINE=<checkout>/dist/cli.js), small requests only,
// in slices short enough that a shared machine's load changes little between the paths of one slice. `npm run
// bench` measures each path for seconds in turn; on a machine that other work shares, its load moves more
// between two paths than two builds differ (two runs of the same build came out 10 % apart). Here every slice
// runs each path for BENCH_AB_SECONDS (1) at 500 requests/s and then saturated, the order rotating, and each
// figure of a build is compared with the other build's in the same slice: the medians of those paired ratios,
// with their spread, are what the command prints. Paths: the bare proxy, and both builds with a key on
// admission leases and with a key that reserves per request. BENCH_AB_OTEL=1 gives both builds OpenTelemetry
// on, exporting to a local sink as `npm run bench`'s traced gateway does; BENCH_AB_OTEL=this gives it to this
// build only, so that with this build as its own baseline the run is an A/B of tracing on against off.

import { loadavg } from "node:os";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { fixedRate, percentile, SMALL_REQUEST, saturate, type Target } from "./load.js";
import { children, cpuMicros, createBenchKeys, forkServer } from "./servers.js";
import { type Proc, startAsUsersDo } from "./user-gateway.js";

const BASELINE = process.env.BENCH_BASELINE;
if (!BASELINE)
  throw new Error("BENCH_BASELINE=<another checkout>/dist/cli.js names the build to compare with");
const SLICES = Number(process.env.BENCH_AB_SLICES ?? 20);
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 1);
const RATE = 500;
const WORKERS = 64;

const loadAtStart = loadavg()[0] ?? 0;
const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);
const [upstreamPort, barePort, gatewayPort, baselinePort] = [
  await freePort(),
  await freePort(),
  await freePort(),
  await freePort(),
];
const upstream = `http://127.0.0.1:${upstreamPort}`;
await forkServer("upstream.ts", [String(upstreamPort)]);
const bare = await forkServer("bare-proxy.ts", [String(barePort), upstream]);
// Both builds started as the README starts the gateway (bench/user-gateway.ts), as `npm run bench` does.
const options = { redisUrl: redis.url, upstream, startedAs: "readme" } as const;
const otelEnv: Record<string, string> = {};
const otel = process.env.BENCH_AB_OTEL ?? "0";
if (otel !== "0") {
  const sinkPort = await freePort();
  await forkServer("otlp-sink.ts", [String(sinkPort)]);
  otelEnv.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sinkPort}`;
}
const gateway = (await startAsUsersDo({ ...options, port: gatewayPort, env: otelEnv })).processes;
const baselineNodeOptions = process.env.BENCH_BASELINE_NODE_OPTIONS;
const baseline = (
  await startAsUsersDo({
    ...options,
    port: baselinePort,
    cli: BASELINE,
    env: {
      ...(otel === "this" ? {} : otelEnv),
      ...(baselineNodeOptions ? { NODE_OPTIONS: baselineNodeOptions } : {}),
    },
  })
).processes;
const { key, limitedKey } = await createBenchKeys(redis.url, "tg:");

interface Path extends Target {
  /** The proxy's processes (with the process that relaunched the gateway, if it did). */
  server: Proc[];
  /** Per slice: CPU µs per request at 500/s (serving process and Redis), and requests/s saturated. */
  cpu: number[];
  rps: number[];
}
const path = (name: string, port: number, server: Proc[], bearer: string | null): Path => ({
  name,
  url: `http://127.0.0.1:${port}`,
  headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
  server,
  cpu: [],
  rps: [],
});
const paths = [
  path("bare proxy", barePort, [bare], null),
  path("this build, leased", gatewayPort, gateway, key),
  path("this build, per request", gatewayPort, gateway, limitedKey),
  path("baseline, leased", baselinePort, baseline, key),
  path("baseline, per request", baselinePort, baseline, limitedKey),
];

for (const p of paths) await fixedRate(p, SMALL_REQUEST, RATE, 2); // warm-up: connections, JIT, key caches
for (let slice = 0; slice < SLICES; slice++) {
  if (slice % 5 === 0) process.stderr.write(`slice ${slice + 1}/${SLICES}\n`);
  const order = [...paths.slice(slice % paths.length), ...paths.slice(0, slice % paths.length)];
  for (const p of order) {
    const cpu = () => p.server.reduce((sum, s) => sum + cpuMicros(s), 0) + cpuMicros(redis.process);
    const before = cpu();
    const latencies = await fixedRate(p, SMALL_REQUEST, RATE, SECONDS);
    p.cpu.push((cpu() - before) / latencies.length);
  }
  for (const p of order) p.rps.push(await saturate(p, SMALL_REQUEST, WORKERS, SECONDS));
}
for (const child of children) child.kill("SIGTERM");
await redis.stop();

const byName = (name: string) => paths.find((p) => p.name === name) as Path;
/** Median and quartiles of the per-slice ratios a / b. */
function paired(a: number[], b: number[]): string {
  const ratios = a.map((x, i) => x / (b[i] as number));
  const q = (p: number) => percentile(ratios, p).toFixed(3);
  return `${q(0.5)} (quartiles ${q(0.25)}–${q(0.75)})`;
}
const med = (values: number[]) => percentile(values, 0.5);
console.log(
  `\n${SLICES} slices of ${SECONDS} s per path; load average ${loadAtStart.toFixed(2)} at the start, ` +
    `${(loadavg()[0] ?? 0).toFixed(2)} at the end. CPU: the serving process and Redis, per request at ${RATE}/s.`,
);
console.log("| path | CPU per request (median slice) | max req/s (median slice) |");
console.log("| --- | --- | --- |");
for (const p of paths) console.log(`| ${p.name} | ${med(p.cpu).toFixed(0)} µs | ${med(p.rps).toFixed(0)} |`);
console.log("\n| paired ratio, median of the slices | CPU per request | max req/s |");
console.log("| --- | --- | --- |");
for (const [a, b] of [
  ["this build, leased", "baseline, leased"],
  ["this build, per request", "baseline, per request"],
  ["this build, leased", "this build, per request"],
  ["baseline, leased", "baseline, per request"],
  ["this build, leased", "bare proxy"],
] as const) {
  const [x, y] = [byName(a), byName(b)];
  console.log(`| ${a} ÷ ${b} | ${paired(x.cpu, y.cpu)} | ${paired(x.rps, y.rps)} |`);
}
process.exit(0);
