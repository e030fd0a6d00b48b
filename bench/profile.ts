// `npm run bench:profile`: where the gateway's CPU per request goes, next to the bare proxy's. It starts
// Redis, the demo model server, the bare proxy and the gateway (as `npm run bench` does), sends each the
// same fixed-rate load of small chat completions, and profiles each process's main thread meanwhile with
// V8's sampling profiler (profiler-hook.mjs), started after the warm-up. Each sample is counted for who is
// responsible for it (profile-breakdown.ts): the gateway's code, each library, Node's core, garbage
// collection. A last run per process with V8's sampling heap profiler instead gives the memory each request
// allocates. The tables go into docs/benchmarks.md between its profile markers unless BENCH_WRITE=0.
//
// BENCH_PROFILE_OTEL=1 profiles the gateway with OpenTelemetry on (exporting to a local sink, as `npm run
// bench`'s traced gateway does) and leaves the page alone: beside a run without it, where tracing's CPU goes.
// The spans' serialization runs on a worker thread, which the main thread's profile does not see; the process'
// CPU per request, printed too, counts it.
//
// The profiler costs CPU of its own, so the totals here are above those of `npm run bench`; what the table
// is for is the split, and the difference between the two processes owner by owner.

import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { fixedRate, SMALL_REQUEST, type Target } from "./load.js";
import {
  allocatedBytes,
  type CpuProfile,
  cpuByGatewayFile,
  cpuByGatewayPart,
  cpuByOwner,
  type HeapProfile,
} from "./profile-breakdown.js";
import {
  currentCommit,
  describeMachine,
  PROFILE_MARKERS,
  type ProfileFigures,
  renderProfile,
  replaceGenerated,
} from "./report.js";
import { children, cpuMicros, createBenchKeys, forkServer, spawnGateway } from "./servers.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = 500;
const OTEL = process.env.BENCH_PROFILE_OTEL === "1";
const WRITE_PAGE = process.env.BENCH_WRITE !== "0" && !OTEL;
const PAGE = join(import.meta.dirname, "../docs/benchmarks.md");
if (WRITE_PAGE) replaceGenerated(readFileSync(PAGE, "utf8"), "", PROFILE_MARKERS);

/** A local OTLP sink (otlp-sink.ts), for the gateway's exports with BENCH_PROFILE_OTEL=1. */
async function otlpSink(): Promise<string> {
  const port = await freePort();
  await forkServer("otlp-sink.ts", [String(port)]);
  return `http://127.0.0.1:${port}`;
}
const hook = ["--import", new URL("./profiler-hook.mjs", import.meta.url).href];

const redis = await startRedisServer();
children.push(redis.process);
const [upstreamPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
await forkServer("upstream.ts", [String(upstreamPort)]);
const bareOut = join(tmpdir(), `tunnel-bench-profile-bare-${process.pid}.json`);
const gatewayOut = join(tmpdir(), `tunnel-bench-profile-gateway-${process.pid}.json`);
/** Which profiler the next start signal starts, for both processes (profiler-hook.mjs reads it). */
const control = join(tmpdir(), `tunnel-bench-profile-kind-${process.pid}`);
const bare = await forkServer("bare-proxy.ts", [String(barePort), upstream], hook, {
  BENCH_PROFILE_OUT: bareOut,
  BENCH_PROFILE_CONTROL: control,
});
const gateway = await spawnGateway({
  port: gatewayPort,
  redisUrl: redis.url,
  upstream,
  metricsEnabled: true,
  nodeArgs: hook,
  env: {
    BENCH_PROFILE_OUT: gatewayOut,
    BENCH_PROFILE_CONTROL: control,
    ...(OTEL ? { OTEL_EXPORTER_OTLP_ENDPOINT: await otlpSink() } : {}),
  },
});
const { key } = await createBenchKeys(redis.url);

const paths: { name: string; target: Target; server: ChildProcess; out: string }[] = [
  {
    name: "bare proxy",
    target: { name: "bare proxy", url: `http://127.0.0.1:${barePort}`, headers: {} },
    server: bare,
    out: bareOut,
  },
  {
    name: "gateway",
    target: {
      name: "gateway",
      url: `http://127.0.0.1:${gatewayPort}`,
      headers: { authorization: `Bearer ${key}` },
    },
    server: gateway,
    out: gatewayOut,
  },
];

/**
 * Per path, summed over the rounds: profiled µs by owner; main-thread and process CPU (µs); requests; and,
 * from the allocation round, bytes allocated and its requests.
 */
const totals = new Map(
  paths.map((p) => [
    p.name,
    {
      owners: new Map<string, number>(),
      files: new Map<string, number>(),
      main: 0,
      cpu: 0,
      requests: 0,
      allocated: 0,
      allocatingRequests: 0,
    },
  ]),
);

/** Runs the load on a path with its profiler on; returns the profile and the load's figures. */
async function underProfiler(path: (typeof paths)[number], kind: "cpu" | "heap") {
  rmSync(path.out, { force: true });
  writeFileSync(control, kind);
  path.server.kill("SIGUSR2");
  await new Promise((resolve) => setTimeout(resolve, 200));
  const [cpuBefore, mainBefore] = [cpuMicros(path.server), cpuMicros(path.server, true)];
  const latencies = await fixedRate(path.target, SMALL_REQUEST, RATE, SECONDS);
  const cpu = cpuMicros(path.server) - cpuBefore;
  const main = cpuMicros(path.server, true) - mainBefore;
  path.server.kill("SIGUSR2");
  for (let i = 0; !existsSync(path.out); i++) {
    if (i > 400) throw new Error(`${path.name} wrote no profile`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // written in one call; let it finish
  const { profile } = JSON.parse(readFileSync(path.out, "utf8")) as { profile: unknown };
  return { profile, requests: latencies.length, main, cpu };
}

async function profiled(path: (typeof paths)[number]): Promise<void> {
  const { profile: cpuProfile, requests, main, cpu } = await underProfiler(path, "cpu");
  const profile = cpuProfile as CpuProfile;
  const sum = totals.get(path.name)!;
  for (const [owner, micros] of cpuByOwner(profile))
    sum.owners.set(owner, (sum.owners.get(owner) ?? 0) + micros);
  for (const [file, micros] of cpuByGatewayFile(profile))
    sum.files.set(file, (sum.files.get(file) ?? 0) + micros);
  sum.main += main;
  sum.cpu += cpu;
  sum.requests += requests;
}

/** One more run per path with the heap profiler instead (which slows a process too much to share a run). */
async function allocations(path: (typeof paths)[number]): Promise<void> {
  const { profile, requests } = await underProfiler(path, "heap");
  const sum = totals.get(path.name)!;
  sum.allocated += allocatedBytes(profile as HeapProfile);
  sum.allocatingRequests += requests;
}

for (const p of paths) await fixedRate(p.target, SMALL_REQUEST, RATE, 2); // warm-up: connections, JIT, key cache
for (let round = 1; round <= ROUNDS; round++) {
  process.stderr.write(`round ${round}/${ROUNDS}\n`);
  for (const p of round % 2 === 1 ? paths : [...paths].reverse()) await profiled(p);
}
for (const p of paths) await allocations(p);
for (const child of children) child.kill("SIGTERM");
await redis.stop();
rmSync(bareOut, { force: true });
rmSync(gatewayOut, { force: true });
rmSync(control, { force: true });

/**
 * Per request, each owner's share of the profiled time applied to the main thread's CPU time: a sample is
 * taken whenever the thread is not idle, also while it waits for a core that another process holds, so
 * the profile's own total runs above the thread's CPU on a busy machine.
 */
const perRequest = (name: string): ProfileFigures => {
  const t = totals.get(name)!;
  const profiled = [...t.owners.values()].reduce((a, b) => a + b, 0);
  const scale = t.main / profiled / t.requests;
  const scaled = (m: Map<string, number>) => new Map([...m].map(([name, micros]) => [name, micros * scale]));
  return {
    owners: scaled(t.owners),
    files: scaled(t.files),
    parts: scaled(cpuByGatewayPart(t.files)),
    main: t.main / t.requests,
    process: t.cpu / t.requests,
    allocatedKiB: t.allocated / t.allocatingRequests / 1024,
  };
};
const figures = renderProfile({
  date: new Date().toISOString(),
  commit: currentCommit(join(import.meta.dirname, "..")),
  rounds: ROUNDS,
  seconds: SECONDS,
  rate: RATE,
  machine: describeMachine(),
  bare: perRequest("bare proxy"),
  gateway: perRequest("gateway"),
});
console.log(`\n${figures}\n`);
if (WRITE_PAGE) {
  writeFileSync(PAGE, replaceGenerated(readFileSync(PAGE, "utf8"), figures, PROFILE_MARKERS));
  console.log(`written to ${PAGE}`);
}
process.exit(0);
