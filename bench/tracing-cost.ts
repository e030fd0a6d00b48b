// What tracing costs a request, on its own: the gateway as the README starts it with OpenTelemetry off and on
// (every request traced, the GenAI metrics on, exported over OTLP to a local sink), and with BENCH_BASELINE
// another build with it on, each sent 500 small requests/s in turn for BENCH_SECONDS (5), BENCH_ROUNDS (8)
// times, the order reversed every other round, on one key served by admission leases. Only fixed-rate rounds:
// a saturated round leaves a traced gateway a queue of spans to export into whatever is measured next, which
// `npm run bench` and `bench:ab` then count. Per request, from /proc: the gateway's main thread, its other
// threads (V8's helpers, libuv's, the span exporter's worker) and Redis. `npm run build && npx tsx
// bench/tracing-cost.ts`; what it found is in docs/benchmarks.md.

import { readdirSync, readFileSync } from "node:fs";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { fixedRate, SMALL_REQUEST, type Target } from "./load.js";
import { children, cpuMicros, createBenchKeys, forkServer } from "./servers.js";
import { startAsUsersDo } from "./user-gateway.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = 500;

const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);
const upstreamPort = await freePort();
await forkServer("upstream.ts", [String(upstreamPort)]);
const sinkPort = await freePort();
await forkServer("otlp-sink.ts", [String(sinkPort)]);
const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` };
const builds: { name: string; cli?: string; env: Record<string, string> }[] = [
  { name: "tracing off", env: {} },
  { name: "tracing on", env: traced },
];
if (process.env.BENCH_BASELINE)
  builds.push({ name: "baseline, tracing on", cli: process.env.BENCH_BASELINE, env: traced });
const { key } = await createBenchKeys(redis.url, "tg:");

interface Path extends Target {
  pid: number;
  main: number;
  other: number;
  redis: number;
  requests: number;
}
const paths: Path[] = [];
for (const build of builds) {
  const port = await freePort();
  const gateway = await startAsUsersDo({
    redisUrl: redis.url,
    upstream: `http://127.0.0.1:${upstreamPort}`,
    startedAs: "readme",
    port,
    cli: build.cli,
    env: build.env,
  });
  paths.push({
    name: build.name,
    url: `http://127.0.0.1:${port}`,
    headers: { authorization: `Bearer ${key}` },
    pid: gateway.serving.pid as number,
    main: 0,
    other: 0,
    redis: 0,
    requests: 0,
  });
}

/** CPU µs of a process's threads: its main thread's, and all the others' together. */
function threads(pid: number): { main: number; other: number } {
  let [main, other] = [0, 0];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const micros = ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime + stime, in 1/100 s
    if (task === String(pid)) main += micros;
    else other += micros;
  }
  return { main, other };
}

for (const p of paths) await fixedRate(p, SMALL_REQUEST, RATE, 3); // warm-up: connections, JIT, the key, the lease
for (let round = 0; round < ROUNDS; round++) {
  process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
  for (const p of round % 2 === 0 ? paths : [...paths].reverse()) {
    const [before, redisBefore] = [threads(p.pid), cpuMicros(redis.process)];
    p.requests += (await fixedRate(p, SMALL_REQUEST, RATE, SECONDS)).length;
    const after = threads(p.pid);
    p.main += after.main - before.main;
    p.other += after.other - before.other;
    p.redis += cpuMicros(redis.process) - redisBefore;
  }
}
for (const child of children) child.kill("SIGTERM");
await redis.stop();

const off = paths[0] as Path;
const total = (p: Path) => (p.main + p.other + p.redis) / p.requests;
console.log(
  `\n${ROUNDS} rounds of ${SECONDS} s at ${RATE} requests/s; CPU per request, summed over the rounds.`,
);
console.log("| gateway | main thread | other threads | Redis | in all | against tracing off |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const p of paths) {
  const per = (micros: number) => `${(micros / p.requests).toFixed(0)} µs`;
  const ratio = total(p) / total(off) - 1;
  console.log(
    `| ${p.name} | ${per(p.main)} | ${per(p.other)} | ${per(p.redis)} | ${total(p).toFixed(0)} µs | ${p === off ? "—" : `${ratio >= 0 ? "+" : ""}${(100 * ratio).toFixed(1)} %`} |`,
  );
}
process.exit(0);
