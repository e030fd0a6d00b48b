// Where a streamed request's time to first byte goes (issue 33's "stream TTFB ≤ +0.3 ms"): streamed chat
// completions sent one at a time, as `npm run bench` measures TTFB (load.ts's firstByte), to the bare proxy
// and to the gateway started as users start it (user-gateway.ts; a leased key with a monthly budget, log lines
// to a file, metrics on), each with bench/ttfb-hook.mjs preloaded (NODE_OPTIONS=--import, nothing else
// changed). The hook records, per request, when it passed each stage after its arrival; this prints the
// medians per path, interleaved over TTFB_ROUNDS rounds (the order rotating), medians of the rounds' medians.
//
//   npx tsx bench/ttfb-stages.ts                                    # the README's way, the image's, the bare proxy
//   BENCH_BASELINE=../old/dist/cli.js npx tsx bench/ttfb-stages.ts  # and another build, for a before/after
//
// TTFB_ROUNDS (3) and TTFB_SAMPLES (200, as npm run bench) set its length; TTFB_GAP_MS pauses between two
// requests, so that the proxy has finished the previous one (its end) when the next is sent. TTFB_LOG_PIPE=1
// adds the README's way with its log lines going to a drained pipe, as the image's do. TTFB_CPU_PROF=1 also profiles
// each proxy's main thread (V8's sampling profiler, a sample every 50 µs) and says, per interval between two moments,
// how long each request spent waiting, collecting garbage or running whose code (ttfb-profile.ts).
// TTFB_STRACE=<dir> traces each proxy's system calls for a few more requests, to count its event-loop waits.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { firstByte, fixedRate, median, type Target } from "./load.js";
import { children, createBenchKeys, forkServer } from "./servers.js";
import { type IntervalTime, type Moments, timeBetween } from "./ttfb-profile.js";
import { waitsWhile } from "./ttfb-strace.js";
import { type Proc, startAsUsersDo } from "./user-gateway.js";

const ROUNDS = Number(process.env.TTFB_ROUNDS ?? 3);
const SAMPLES = Number(process.env.TTFB_SAMPLES ?? 200);
const BASELINE = process.env.BENCH_BASELINE;
/** A pause between two requests (ms); none by default, as npm run bench sends them. */
const GAP_MS = Number(process.env.TTFB_GAP_MS ?? 0);
const HOOK = join(import.meta.dirname, "ttfb-hook.mjs");
const CPU_PROF = process.env.TTFB_CPU_PROF;
const profiled: Record<string, string> = CPU_PROF ? { TTFB_CPU_PROF: "1" } : {};
const STREAM_BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 16,
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

/** The moments the hook records, in the order a request passes them (a gateway's stages by their names). */
const MOMENTS: readonly { key: string; says: string }[] = [
  { key: "clientSent", says: "client: request sent" },
  { key: "connected", says: "connection accepted" },
  { key: "authenticateEntered", says: "pipeline entered (stage authenticate starts)" },
  { key: "authenticate", says: "key authenticated (stage authenticate)" },
  { key: "classify", says: "endpoint classified (stage classify)" },
  { key: "inspectEntered", says: "body read starts (stage inspect)" },
  { key: "bodyRead", says: "body read (the request's 'end')" },
  { key: "inspect", says: "body checked, model found (stage inspect)" },
  { key: "admit", says: "admitted (stage admit)" },
  { key: "sendEntered", says: "stage send starts" },
  { key: "upstreamCreated", says: "upstream request created (http.request)" },
  { key: "send", says: "handed to its exchange (stage send)" },
  {
    key: "upstreamFlushed",
    says: "upstream request ended on its socket (its last write; the bare proxy writes the body earlier)",
  },
  { key: "upstreamWritten", says: "upstream request finished (its 'finish')" },
  { key: "modelArrived", says: "model server: request arrived" },
  { key: "modelWrote", says: "model server: first write of its answer" },
  { key: "upstreamHeaders", says: "upstream response head parsed" },
  { key: "upstreamChunk", says: "upstream's first body chunk read" },
  { key: "clientWrite", says: "first write to the client (head and first chunk)" },
  { key: "clientFlushed", says: "first bytes to the client handed to the kernel (the socket uncorked)" },
  { key: "clientFirstByte", says: "client: first byte of the body read" },
  { key: "nextConnected", says: "the next request's connection accepted" },
  { key: "nextArrived", says: "the next request arrived" },
];

const loadAtStart = loadavg()[0] ?? 0;
const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);
const outDir = mkdtempSync(join(tmpdir(), "tunnel-ttfb-"));

interface Path extends Target {
  serving: Proc;
  out: string;
}

const [upstreamPort, barePort] = [await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
// The model server is timed too, on the same monotonic clock: when each request reached it and when it wrote
// its answer's first bytes, so that the wait for its answer splits into its own time and the trips to it.
const modelOut = join(outDir, "model.json");
const model: Path = {
  name: "model server",
  url: upstream,
  headers: {},
  serving: await forkServer("upstream.ts", [String(upstreamPort)], ["--import", HOOK], {
    TTFB_STAGES_OUT: modelOut,
  }),
  out: modelOut,
};
const bareOut = join(outDir, "bare.json");
const bare = await forkServer("bare-proxy.ts", [String(barePort), upstream], ["--import", HOOK], {
  TTFB_STAGES_OUT: bareOut,
  ...profiled,
});

const gatewayWays = [
  { name: "gateway (README way)", startedAs: "readme" as const, nodeOptions: "", cli: undefined },
  {
    name: "gateway (image way)",
    startedAs: "image" as const,
    nodeOptions: "--max-semi-space-size=64 ",
    cli: undefined,
  },
  // The README's way with its log lines going where the image's go, a drained pipe (TTFB_LOG_PIPE=1).
  ...(process.env.TTFB_LOG_PIPE === "1"
    ? [{ name: "README way, log to a pipe", startedAs: "image" as const, nodeOptions: "", cli: undefined }]
    : []),
  ...(BASELINE
    ? [{ name: "baseline (README way)", startedAs: "readme" as const, nodeOptions: "", cli: BASELINE }]
    : []),
];
const paths: Path[] = [
  {
    name: "bare proxy",
    url: `http://127.0.0.1:${barePort}`,
    headers: {},
    serving: bare,
    out: bareOut,
  },
];
for (const [i, way] of gatewayWays.entries()) {
  const port = await freePort();
  const out = join(outDir, `gateway-${i}.json`);
  const started = await startAsUsersDo({
    startedAs: way.startedAs,
    port,
    redisUrl: redis.url,
    upstream,
    ...(way.cli ? { cli: way.cli } : {}),
    env: {
      NODE_OPTIONS: `${way.nodeOptions}--import ${HOOK}`,
      // The README's way has no NODE_ENV (the pipe variant starts from the image's environment).
      ...(way.startedAs === "image" && way.nodeOptions === "" ? { NODE_ENV: "" } : {}),
      TTFB_STAGES_OUT: out,
      ...profiled,
    },
  });
  paths.push({
    name: way.name,
    url: `http://127.0.0.1:${port}`,
    headers: {},
    serving: started.serving,
    out,
  });
}
const { key } = await createBenchKeys(redis.url, "tg:");
for (const p of paths.slice(1)) p.headers = { authorization: `Bearer ${key}` };

/** Asks a path's serving process for what its hook recorded (and has it start afresh). */
async function collect(path: Path): Promise<Moments[]> {
  rmSync(path.out, { force: true });
  process.kill(path.serving.pid as number, "SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(path.out); i++) await new Promise((r) => setTimeout(r, 10));
  // Written whole by one writeFileSync: read once it parses.
  for (let i = 0; i < 50; i++) {
    try {
      return JSON.parse(readFileSync(path.out, "utf8")) as Moments[];
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  throw new Error(`${path.name}: no records`);
}

// Warm-up: connections, JIT, the key cache and the lease, as npm run bench does.
for (const p of paths) {
  await fixedRate(p, STREAM_BODY, 200, 2);
  await firstByte(p, STREAM_BODY, 50);
  await collect(p);
}
await collect(model);

/**
 * Time to first byte as npm run bench's firstByte (load.ts) measures it, one request at a time, each request's
 * send and first byte also read on the monotonic clock the proxies' records use (µs).
 */
async function timedFirstByte(target: Target, samples: number): Promise<{ sent: number; first: number }[]> {
  const client = new Pool(target.url, { connections: 1, pipelining: 1 });
  const times: { sent: number; first: number }[] = [];
  for (let i = 0; i < samples; i++) {
    const sent = Number(process.hrtime.bigint() / 1000n);
    const { body: response } = await client.request({
      path: "/v1/chat/completions",
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: STREAM_BODY,
    });
    for await (const _chunk of response) {
      times.push({ sent, first: Number(process.hrtime.bigint() / 1000n) });
      break;
    }
    await response.dump().catch(() => {});
    // A pause after each request lets the proxy finish the one before (its end: settlement, log line) first.
    if (GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  await client.close();
  return times;
}

/** The model server's moments on each request of the proxy's, one for one (both saw them in order). */
function withModel(records: Moments[], modelRecords: Moments[]): Moments[] {
  if (records.length !== modelRecords.length) return records;
  return records.map((r, i) => {
    const m = modelRecords[i] as Moments;
    const at = (m.hr as number) - (r.hr as number);
    return { ...r, modelArrived: at, modelWrote: at + (m.clientWrite as number) };
  });
}

/** When the next request's connection and the request itself came, on each request but the last. */
function withNext(records: Moments[]): Moments[] {
  return records.map((r, i) => {
    const next = records[i + 1];
    if (next === undefined) return r;
    const arrived = (next.hr as number) - (r.hr as number);
    return { ...r, nextConnected: arrived + (next.connected as number), nextArrived: arrived };
  });
}

/** And the client's, likewise. */
function withClient(records: Moments[], client: { sent: number; first: number }[]): Moments[] {
  if (records.length !== client.length) return records;
  return records.map((r, i) => {
    const { sent, first } = client[i] as { sent: number; first: number };
    return { ...r, clientSent: sent - (r.hr as number), clientFirstByte: first - (r.hr as number) };
  });
}

const rounds = new Map(paths.map((p) => [p.name, [] as Record<string, number>[]]));
/** Every request's moments, all rounds together, per path. */
const pooled = new Map(paths.map((p) => [p.name, [] as Moments[]]));
/** Per path, each round's main-thread time by interval (TTFB_CPU_PROF). */
const profiles = new Map(paths.map((p) => [p.name, [] as IntervalTime[][]]));
// (What happens before a request's arrival is counted as the previous request's last interval.)
const BOUNDARIES = [
  "arrival",
  ...MOMENTS.map((m) => m.key).filter((key) => key !== "clientSent" && key !== "connected"),
];
for (let round = 0; round < ROUNDS; round++) {
  const order = [...paths.slice(round % paths.length), ...paths.slice(0, round % paths.length)];
  for (const p of order) {
    const client = await timedFirstByte(p, SAMPLES);
    const records = withNext(withClient(withModel(await collect(p), await collect(model)), client));
    if (CPU_PROF) profiles.get(p.name)?.push(timeBetween(`${p.out}.cpuprofile`, records, BOUNDARIES));
    pooled.get(p.name)?.push(...records);
    const medians: Record<string, number> = { client: median(client.map((c) => c.first - c.sent)) };
    for (const { key } of MOMENTS) {
      const values = records.map((r) => r[key]).filter((v): v is number => v !== undefined);
      if (values.length > 0) medians[key] = median(values);
    }
    (rounds.get(p.name) as Record<string, number>[]).push(medians);
  }
}

const overRounds = (name: string, key: string): number | undefined => {
  const values = (rounds.get(name) as Record<string, number>[])
    .map((r) => r[key])
    .filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : median(values);
};
const cell = (v: number | undefined) => (v === undefined ? "—" : `${v.toFixed(0)} µs`);
console.log(
  `\nload average ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end; ` +
    `${ROUNDS} interleaved rounds of ${SAMPLES} streamed requests one at a time` +
    `${GAP_MS > 0 ? `, ${GAP_MS} ms apart` : ""}, medians of the rounds' medians`,
);
console.log(`| µs after the request's arrival | ${paths.map((p) => p.name).join(" | ")} |`);
console.log(`| --- | ${paths.map(() => "---").join(" | ")} |`);
for (const { key, says } of MOMENTS)
  console.log(`| ${says} | ${paths.map((p) => cell(overRounds(p.name, key))).join(" | ")} |`);
console.log(
  `| time to first byte at the client (from its send) | ${paths.map((p) => cell(overRounds(p.name, "client"))).join(" | ")} |`,
);
// The same, as intervals: each request's time from one moment to the next, the median over every request of
// every round. The first nine add up to the time to first byte (their medians nearly do).
const INTERVALS: readonly { from: string; to: string; says: string }[] = [
  {
    from: "clientSent",
    to: "arrival",
    says: "client's send → arrival (connection, request read and parsed)",
  },
  { from: "arrival", to: "bodyRead", says: "arrival → body read" },
  { from: "bodyRead", to: "upstreamCreated", says: "body read → upstream request created" },
  { from: "upstreamCreated", to: "modelArrived", says: "upstream request created → at the model server" },
  { from: "modelArrived", to: "modelWrote", says: "the model server's own time" },
  { from: "modelWrote", to: "upstreamHeaders", says: "model server's write → its head parsed" },
  { from: "upstreamHeaders", to: "clientWrite", says: "head parsed → first write to the client" },
  { from: "clientWrite", to: "clientFlushed", says: "first write → socket uncorked (the rest of that read)" },
  { from: "clientFlushed", to: "clientFirstByte", says: "uncorked → client's first byte" },
  { from: "arrival", to: "authenticateEntered", says: "of which: arrival → pipeline (request id, route)" },
  { from: "authenticateEntered", to: "authenticate", says: "of which: authenticate" },
  { from: "authenticate", to: "inspectEntered", says: "of which: classify" },
  { from: "bodyRead", to: "inspect", says: "of which: inspect after the body (parse, facts)" },
  { from: "inspect", to: "admit", says: "of which: admit (on the lease)" },
  { from: "sendEntered", to: "upstreamCreated", says: "of which: send, up to http-proxy-3's http.request" },
  { from: "clientFirstByte", to: "nextArrived", says: "client's first byte → next request arrived" },
];
const intervalMedian = (name: string, from: string, to: string): number | undefined => {
  const at = (r: Moments, key: string) => (key === "arrival" ? 0 : r[key]);
  const values = (pooled.get(name) ?? [])
    .map((r) => {
      const [a, b] = [at(r, from), at(r, to)];
      return a === undefined || b === undefined ? undefined : b - a;
    })
    .filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : median(values);
};
const [bareName] = paths.map((p) => p.name);
console.log(
  `\n| median µs per request | ${paths.map((p) => p.name).join(" | ")} | ${paths
    .slice(1)
    .map((p) => `${p.name} − bare`)
    .join(" | ")} |`,
);
console.log(`| --- | ${[...paths, ...paths.slice(1)].map(() => "---").join(" | ")} |`);
for (const { from, to, says } of INTERVALS) {
  const bareValue = intervalMedian(bareName as string, from, to);
  const values = paths.map((p) => intervalMedian(p.name, from, to));
  const differences = values
    .slice(1)
    .map((v) => (v === undefined || bareValue === undefined ? "—" : `${(v - bareValue).toFixed(0)}`));
  console.log(`| ${says} | ${values.map(cell).join(" | ")} | ${differences.join(" | ")} |`);
}

console.log("\nper round, time to first byte at the client:");
for (const p of paths)
  console.log(
    `  ${p.name}: ${(rounds.get(p.name) as Record<string, number>[]).map((r) => cell(r.client)).join(", ")}`,
  );

// TTFB_STRACE=<dir>: each proxy's main thread traced (its I/O system calls and event-loop waits) while
// TTFB_STRACE_REQUESTS more requests run one at a time, to <dir>/<path>.strace, to count the wake-ups.
if (process.env.TTFB_STRACE) {
  const dir = process.env.TTFB_STRACE;
  const traced = Number(process.env.TTFB_STRACE_REQUESTS ?? 20);
  for (const p of paths) {
    const file = join(dir, `${p.name.toLowerCase().replace(/[^a-z]+/g, "-")}.strace`);
    const segments = await waitsWhile(p.serving.pid as number, file, () => firstByte(p, STREAM_BODY, traced));
    console.log(
      `${p.name}: event-loop waits per request (median of ${segments.length}), in ${file}: ` +
        `request read → upstream written ${median(segments.map((w) => w[0]))}, ` +
        `→ upstream's answer read ${median(segments.map((w) => w[1]))}, ` +
        `→ client written ${median(segments.map((w) => w[2]))}`,
    );
  }
}

if (CPU_PROF) {
  for (const p of paths) {
    console.log(`\n${p.name}: main thread per request, by interval, the rounds' mean (µs)`);
    const rounds = profiles.get(p.name) ?? [];
    for (const { interval } of rounds[0] ?? []) {
      const by = new Map<string, number>();
      for (const round of rounds)
        for (const [name, us] of round.find((r) => r.interval === interval)?.by ?? [])
          by.set(name, (by.get(name) ?? 0) + us / rounds.length);
      const sorted = [...by].sort((a, b) => b[1] - a[1]);
      const total = sorted.reduce((sum, [, us]) => sum + us, 0);
      const top = sorted
        .slice(0, 6)
        .map(([name, us]) => `${name} ${us.toFixed(0)}`)
        .join(", ");
      console.log(`  ${interval}: ${total.toFixed(0)} — ${top}`);
    }
  }
}

for (const child of children) child.kill("SIGTERM");
await redis.stop();
rmSync(outDir, { recursive: true, force: true });
process.exit(0);
