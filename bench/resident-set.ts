// `npm run bench:memory`: what the resident set of the gateway is made of, beside the bare proxy's. Both are
// started as in `npm run bench` (the gateway as the README starts it), with bench/memory-report.cjs preloaded;
// each is asked (SIGUSR2) for V8's and the kernel's account of its memory once serving and again after a
// warm-up (BENCH_SECONDS at 500 requests/s, then as fast as 64 clients go). With BENCH_BASELINE=<checkout>/
// dist/cli.js the other build's gateway is measured too. Printed as a Markdown table, in MiB.

import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { fixedRate, SMALL_REQUEST, saturate, type Target } from "./load.js";
import { children, createBenchKeys, forkServer } from "./servers.js";
import { type Proc, startAsUsersDo } from "./user-gateway.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BASELINE = process.env.BENCH_BASELINE;
const HOOK = join(import.meta.dirname, "memory-report.cjs");
const dir = mkdtempSync(join(tmpdir(), "tunnel-bench-memory-"));

interface Report {
  memoryUsage: NodeJS.MemoryUsage;
  spaces: Array<{ space_name: string; space_size: number; space_used_size: number }>;
  code: {
    code_and_metadata_size: number;
    bytecode_and_metadata_size: number;
    external_script_source_size: number;
  };
  rollup: Record<string, number>;
}

async function reportOf(proc: Proc): Promise<Report> {
  const file = join(dir, `memory-${proc.pid}.json`);
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  process.kill(proc.pid as number, "SIGUSR2");
  for (let i = 0; i < 200; i++) {
    if (existsSync(file) && readFileSync(file, "utf8") !== before)
      return JSON.parse(readFileSync(file, "utf8"));
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`process ${proc.pid} wrote no memory report`);
}

const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);
const [upstreamPort, barePort] = [await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
await forkServer("upstream.ts", [String(upstreamPort)]);
const env = { BENCH_MEMORY_REPORT: dir };
const bare = await forkServer("bare-proxy.ts", [String(barePort), upstream], ["--require", HOOK], env);
const gatewayEnv = { ...env, NODE_OPTIONS: `--require ${HOOK}` };
const startGateway = async (cli?: string) => {
  const port = await freePort();
  const g = await startAsUsersDo({
    startedAs: "readme",
    port,
    redisUrl: redis.url,
    upstream,
    cli,
    env: gatewayEnv,
  });
  return { port, serving: g.serving };
};
const gateway = await startGateway();
const baseline = BASELINE ? await startGateway(BASELINE) : null;
const { key } = await createBenchKeys(redis.url, "tg:");

const paths: Array<{ name: string; proc: Proc; target: Target }> = [
  {
    name: "bare proxy",
    proc: bare,
    target: { name: "bare", url: `http://127.0.0.1:${barePort}`, headers: {} },
  },
  ...[["gateway", gateway], ...(baseline ? [["baseline gateway", baseline] as const] : [])].map(
    ([name, g]) => ({
      name: name as string,
      proc: (g as typeof gateway).serving,
      target: {
        name: name as string,
        url: `http://127.0.0.1:${(g as typeof gateway).port}`,
        headers: { authorization: `Bearer ${key}` },
      },
    }),
  ),
];

const atStart = await Promise.all(paths.map((p) => reportOf(p.proc)));
for (const p of paths) {
  await fixedRate(p.target, SMALL_REQUEST, 500, SECONDS);
  await saturate(p.target, SMALL_REQUEST, 64, Math.max(1, SECONDS / 2));
}
// A moment for the last responses' garbage to be collected as an idle process would.
await new Promise((resolve) => setTimeout(resolve, 1000));
const afterWarmup = await Promise.all(paths.map((p) => reportOf(p.proc)));
for (const child of children) child.kill("SIGTERM");
await redis.stop();

const mib = (bytes: number | undefined) => ((bytes ?? 0) / 2 ** 20).toFixed(1);
const rows: Array<[string, (r: Report) => number | undefined]> = [
  ["resident set (VmRSS)", (r) => r.memoryUsage.rss],
  ["  anonymous (heaps, malloc, stacks)", (r) => r.rollup.Anonymous],
  ["  file-backed (node binary, shared libraries)", (r) => (r.rollup.Rss ?? 0) - (r.rollup.Anonymous ?? 0)],
  ["V8 heap committed", (r) => r.memoryUsage.heapTotal],
  ["V8 heap used", (r) => r.memoryUsage.heapUsed],
  ...["new_space", "old_space", "code_space", "large_object_space", "read_only_space", "trusted_space"].map(
    (name): [string, (r: Report) => number | undefined] => [
      `  ${name} committed (used)`,
      (r) => r.spaces.find((s) => s.space_name === name)?.space_size,
    ],
  ),
  ["compiled code and its metadata", (r) => r.code.code_and_metadata_size],
  ["bytecode and its metadata", (r) => r.code.bytecode_and_metadata_size],
  ["external (Buffers, strings outside the heap)", (r) => r.memoryUsage.external],
  ["  of which ArrayBuffers", (r) => r.memoryUsage.arrayBuffers],
];
const used = (r: Report, name: string) => r.spaces.find((s) => s.space_name === `${name}`)?.space_used_size;
const cell = (r: Report, label: string, pick: (r: Report) => number | undefined) => {
  const space = /^ {2}(\w+) committed/.exec(label)?.[1];
  return space ? `${mib(pick(r))} (${mib(used(r, space))})` : mib(pick(r));
};
console.log(
  `\n| MiB | ${paths.map((p) => `${p.name}, once serving | ${p.name}, after the warm-up`).join(" | ")} |`,
);
console.log(`| --- | ${paths.map(() => "--- | ---").join(" | ")} |`);
for (const [label, pick] of rows) {
  const cells = paths.map((_, i) => {
    const [start, after] = [atStart[i] as Report, afterWarmup[i] as Report];
    return `${cell(start, label, pick)} | ${cell(after, label, pick)}`;
  });
  console.log(`| ${label} | ${cells.join(" | ")} |`);
}
process.exit(0);
