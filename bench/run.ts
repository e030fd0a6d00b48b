// `npm run bench`: how much the gateway adds, measured the way users run it. It starts its own Redis (with
// append-only persistence, as production runs it), the demo model server, a bare http-proxy-3 pass-through
// that reads and parses the body (the floor, on Node's defaults), and the gateway as the README starts it
// (`node dist/cli.js serve`, TUNNEL_REDIS_URL, log lines to a file) and as the image and the chart start it
// (their environment, log lines to a pipe another process drains), plus one with OpenTelemetry on; keys with
// a monthly budget in an account, metrics on, defaults otherwise (bench/user-gateway.ts). It measures the
// paths interleaved, round after round, so that a machine's drift affects all of them alike:
//   - p50 and p99 latency at a fixed 500 requests/s, and the CPU time each request costs meanwhile: the proxy
//     alone (its processes, and for the gateway its Redis: the figure the targets read) and the serving
//     processes (with the model server's), from /proc/<pid>/stat,
//   - maximum throughput,
//   - time to first byte of a streamed chat completion,
//   - the gateway's peak memory while a 256 MiB response streams through it, and its resident set when idle,
//     after start-up and after the warm-up, beside the bare proxy's,
//   - the streams scenario (streams.ts): many long streams at once through each path, CPU per streamed event,
//     each event's delay from the model server's write, and the proxy's resident set while they are open,
//   - the invalidation bound: how soon after a revoke or a disable returns the other gateway (both share the
//     Redis, as two replicas) stops admitting the key on its lease (invalidation.ts),
//   - the saturated scenario (saturated.ts): a model server that runs 8 requests at once, a noisy account
//     flooding it and a quiet one trickling, each account's time to first byte through a gateway with fair
//     sharing and through one without,
//   - and, once the servers have stopped, the CPU time metrics add to a request, and what each fast path into
//     a library saves against the library's public way (fast-paths.ts), measured in-process.
// Results are medians over the rounds. They are printed, and written into docs/benchmarks.md (between its
// generated-section markers, with the machine, the date, the command and issue 33's targets) unless
// BENCH_WRITE=0. BENCH_ROUNDS, BENCH_SECONDS, BENCH_STREAM_ROUNDS and BENCH_SATURATED_* shorten a run.
//
// BENCH_BASELINE=<another checkout>/dist/cli.js adds that build's gateway (started as the README does) as one more path,
// measured interleaved with the others, for an A/B comparison of two versions; its figures are printed
// beside the gateway's, and the page is not written. BENCH_ONLY=streams runs the streams scenario alone
// (printed, the page not written); BENCH_STREAMS, BENCH_CHUNKS and BENCH_CHUNK_MS set its shape.
// BENCH_ONLY=requests runs the small requests' rounds alone (printed, the page not written), for an A/B run.
// BENCH_ONLY=saturated runs the saturated scenario alone (printed, the page not written);
// BENCH_SATURATED_SECONDS and BENCH_SATURATED_ROUNDS set its length.

import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { closeRedis, connectRedis, createRedis } from "../src/store/connection/redis.js";
import { openStores } from "../src/store/stores.js";
import { measureFastPaths } from "./fast-paths.js";
import { measureInvalidation } from "./invalidation.js";
import { firstByte, fixedRate, median, percentile, SMALL_REQUEST, saturate, type Target } from "./load.js";
import { metricsMicrosPerRequest } from "./metrics-cost.js";
import {
  type BenchReport,
  benchCommand,
  currentCommit,
  describeMachine,
  type PathFigures,
  renderFigures,
  renderSaturated,
  renderStreams,
  replaceGenerated,
  type StreamFigures,
  type StreamsReport,
} from "./report.js";
import { measureSaturatedScenario } from "./saturated-run.js";
import { children, cpuMicros, createBenchKeys, forkServer } from "./servers.js";
import { measureStreams, privateMiB, rssMiB, type StreamRound, type StreamTarget } from "./streams.js";
import { type Proc, startAsUsersDo, type UserGateway } from "./user-gateway.js";

// Four rounds by default: with the order rotating, each path is measured once in each position.
const DEFAULTS = { rounds: 4, seconds: 5 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? DEFAULTS.rounds);
const SECONDS = Number(process.env.BENCH_SECONDS ?? DEFAULTS.seconds);
const BASELINE = process.env.BENCH_BASELINE;
const STREAMS_ONLY = process.env.BENCH_ONLY === "streams";
const REQUESTS_ONLY = process.env.BENCH_ONLY === "requests";
const SATURATED_ONLY = process.env.BENCH_ONLY === "saturated";
const WRITE_PAGE =
  process.env.BENCH_WRITE !== "0" &&
  BASELINE === undefined &&
  !STREAMS_ONLY &&
  !SATURATED_ONLY &&
  !REQUESTS_ONLY;
const SATURATED = {
  capacity: 8,
  serviceMs: 100,
  seconds: Number(process.env.BENCH_SATURATED_SECONDS ?? 8),
  quietIntervalMs: 50,
};
const SATURATED_ROUNDS = Number(process.env.BENCH_SATURATED_ROUNDS ?? 2);
const STREAMS = {
  streams: Number(process.env.BENCH_STREAMS ?? 200),
  chunks: Number(process.env.BENCH_CHUNKS ?? 100),
  intervalMs: Number(process.env.BENCH_CHUNK_MS ?? 20),
};
/** Rounds of the streams scenario: each one is a few seconds per path. */
const STREAM_ROUNDS = Number(process.env.BENCH_STREAM_ROUNDS ?? 3);
/** The Redis prefix of gateways started as users do (the default); the file-configured ones use "bench:". */
const USER_PREFIX = "tg:";
const PAGE = join(import.meta.dirname, "../docs/benchmarks.md");
const loadAtStart = loadavg()[0] ?? 0;
// A page without its markers would be found out only after the whole run: check it first.
if (WRITE_PAGE) replaceGenerated(readFileSync(PAGE, "utf8"), "");
const RATE = 500;
const TTFB_SAMPLES = 200;
/** Keys revoked or disabled under load on the other replica's lease, for the invalidation bound. */
const INVALIDATION_TRIALS = 20;
const WORKERS = 64;
const STREAM_BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 16,
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

// Redis as production runs it: append-only persistence on (the gateway refuses a Redis without it unless told
// otherwise).
const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);

const runSaturated = () => measureSaturatedScenario(redis.url, SATURATED, SATURATED_ROUNDS);

if (SATURATED_ONLY) {
  console.log(`\n${renderSaturated(await runSaturated())}\n`);
  for (const child of children) child.kill("SIGTERM");
  await redis.stop();
  process.exit(0);
}
const [upstreamPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
const upstream = `http://127.0.0.1:${upstreamPort}`;
const upstreamProcess = await forkServer("upstream.ts", [String(upstreamPort)]);
const bareProcess = await forkServer("bare-proxy.ts", [String(barePort), upstream]);

// The gateway as the README starts it (log lines to a file), and as the image and the chart start it (their
// environment, log lines to a pipe drained by another process); both on the default Redis prefix.
const [imagePort, otelPort, sinkPort] = [await freePort(), await freePort(), await freePort()];
const userOptions = { redisUrl: redis.url, upstream };
const gateway = await startAsUsersDo({ ...userOptions, startedAs: "readme", port: gatewayPort });
const imageGateway = await startAsUsersDo({ ...userOptions, startedAs: "image", port: imagePort });
// OpenTelemetry on, exporting to a local sink over OTLP (the default protocol); the spec's default sampler
// (parentbased_always_on) traces every request that comes without a parent: 100 % sampled.
await forkServer("otlp-sink.ts", [String(sinkPort)]);
const otelGateway = await startAsUsersDo({
  ...userOptions,
  startedAs: "readme",
  port: otelPort,
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` },
});
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const baselinePort = await freePort();
const baseline = BASELINE
  ? await startAsUsersDo({
      ...userOptions,
      startedAs: "readme",
      port: baselinePort,
      cli: BASELINE,
      env: process.env.BENCH_BASELINE_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.BENCH_BASELINE_NODE_OPTIONS }
        : {},
    })
  : null;

const { key, limitedKey } = await createBenchKeys(redis.url, USER_PREFIX);

/** A path to measure, the processes of its proxy (none for the model server asked directly), and its Redis. */
interface MeasuredPath extends Target {
  proxy: Proc[];
  usesRedis: boolean;
}
const auth = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
const gatewayPath = (name: string, port: number, g: UserGateway, bearer: string): MeasuredPath => ({
  name,
  url: `http://127.0.0.1:${port}`,
  headers: auth(bearer),
  proxy: g.processes,
  usesRedis: true,
});
const targets: MeasuredPath[] = [
  { name: "direct", url: upstream, headers: {}, proxy: [], usesRedis: false },
  {
    name: "bare proxy",
    url: `http://127.0.0.1:${barePort}`,
    headers: {},
    proxy: [bareProcess],
    usesRedis: false,
  },
  gatewayPath("gateway", gatewayPort, gateway, key),
  gatewayPath("gateway, per request", gatewayPort, gateway, limitedKey),
  gatewayPath("gateway, image", imagePort, imageGateway, key),
  gatewayPath("gateway, OpenTelemetry on", otelPort, otelGateway, key),
  ...(baseline ? [gatewayPath("baseline gateway", baselinePort, baseline, key)] : []),
];
const cpuOf = (processes: Proc[]) => processes.reduce((sum, p) => sum + cpuMicros(p), 0);

const results = new Map(
  targets.map((t) => [
    t.name,
    {
      p50: [] as number[],
      p99: [] as number[],
      cpu: [] as number[],
      redisCpu: [] as number[],
      upstreamCpu: [] as number[],
      rps: [] as number[],
      ttfb: [] as number[],
    },
  ]),
);

// Idle memory: each proxy's resident set once it serves, and again after the warm-up.
const idleNow = () => ({
  bare: rssMiB(bareProcess.pid as number),
  gateway: rssMiB(gateway.serving.pid as number),
  image: rssMiB(imageGateway.serving.pid as number),
  // The process `node dist/cli.js serve` leaves waiting for the serving one when it relaunched it (Node 20):
  // its own memory, since its resident set is mostly the node binary's pages, shared with the serving process.
  launcher: gateway.processes.length > 1 ? privateMiB(gateway.started.pid as number) : 0,
});
const idleAtStart = idleNow();

// Warm-up: connections, JIT, the gateway's key cache.
for (const t of targets) await fixedRate(t, SMALL_REQUEST, RATE, 2);
const idleAfterWarmup = idleNow();

for (let round = 1; round <= (STREAMS_ONLY ? 0 : ROUNDS); round++) {
  process.stderr.write(`round ${round}/${ROUNDS}\n`);
  // The order rotates every round: a path measured right after another one's saturation run came out a few
  // percent slower, so no path may always follow the same one.
  const order = [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)];
  for (const t of order) {
    const cpu = [cpuOf(t.proxy), cpuMicros(redis.process), cpuMicros(upstreamProcess)];
    const latencies = await fixedRate(t, SMALL_REQUEST, RATE, SECONDS);
    const r = results.get(t.name)!;
    r.cpu.push((cpuOf(t.proxy) - (cpu[0] as number)) / latencies.length);
    r.redisCpu.push((cpuMicros(redis.process) - (cpu[1] as number)) / latencies.length);
    r.upstreamCpu.push((cpuMicros(upstreamProcess) - (cpu[2] as number)) / latencies.length);
    r.p50.push(percentile(latencies, 0.5));
    r.p99.push(percentile(latencies, 0.99));
  }
  for (const t of order) results.get(t.name)!.rps.push(await saturate(t, SMALL_REQUEST, WORKERS, SECONDS));
  for (const t of order)
    results.get(t.name)!.ttfb.push(median(await firstByte(t, STREAM_BODY, TTFB_SAMPLES)));
}

if (REQUESTS_ONLY) {
  // The small requests alone, every path (with the baseline's, in an A/B run), medians over the rounds.
  console.log(
    `\nload average ${loadAtStart.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end`,
  );
  console.log(
    "| path | p50 @ 500/s | p99 @ 500/s | CPU per request, proxy | Redis CPU per request | max req/s | stream TTFB p50 |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, r] of results) {
    const m = (values: number[]) => median(values);
    console.log(
      `| ${name} | ${m(r.p50).toFixed(2)} ms | ${m(r.p99).toFixed(2)} ms | ${m(r.cpu).toFixed(0)} µs | ` +
        `${m(r.redisCpu).toFixed(0)} µs | ${m(r.rps).toFixed(0)} | ${m(r.ttfb).toFixed(2)} ms |`,
    );
  }
  for (const child of children) child.kill("SIGTERM");
  await redis.stop();
  process.exit(0);
}

// Streams: the same processes, each path in turn, the order rotating every round. A gateway's own CPU is its
// processes' and its Redis'; the serving processes add the model server's.
const streamTargets: StreamTarget[] = [
  {
    name: "direct",
    url: upstream,
    headers: {},
    asksUsage: true,
    proxy: null,
    own: [],
    tree: [upstreamProcess],
  },
  {
    name: "bare proxy",
    url: `http://127.0.0.1:${barePort}`,
    headers: {},
    asksUsage: true,
    proxy: bareProcess,
    own: [bareProcess],
    tree: [upstreamProcess, bareProcess],
  },
  ...(
    [
      ["gateway", gateway, gatewayPort],
      ["image gateway", imageGateway, imagePort],
      ...(baseline ? [["baseline gateway", baseline, baselinePort] as const] : []),
    ] as const
  ).flatMap(([label, g, port]) => {
    const url = `http://127.0.0.1:${port}`;
    const own = [...g.processes, redis.process];
    const common = { url, headers: auth(key), proxy: g.serving, own, tree: [upstreamProcess, ...own] };
    return [
      { name: `${label}, scan`, asksUsage: true, ...common },
      // The image's way is measured in scan mode only: the mode changes nothing in how it is started.
      ...(label === "image gateway" ? [] : [{ name: `${label}, strip`, asksUsage: false, ...common }]),
    ];
  }),
];
const streamResults = new Map<string, StreamRound[]>(streamTargets.map((t) => [t.name, []]));
for (let round = 1; round <= STREAM_ROUNDS; round++) {
  process.stderr.write(`streams round ${round}/${STREAM_ROUNDS}\n`);
  const shift = round % streamTargets.length;
  for (const t of [...streamTargets.slice(shift), ...streamTargets.slice(0, shift)]) {
    const figures = await measureStreams(t, STREAMS);
    if (figures.failed > 0) throw new Error(`${t.name}: ${figures.failed} streams were refused`);
    streamResults.get(t.name)!.push(figures);
  }
}
const streamRow = (name: string): StreamFigures => {
  const rounds = streamResults.get(name)!;
  const med = (pick: (r: StreamRound) => number) => median(rounds.map(pick));
  return {
    treeCpu: med((r) => r.treeCpu),
    proxyCpu: rounds[0]?.proxyCpu === null ? null : med((r) => r.proxyCpu as number),
    p50: med((r) => r.p50),
    p99: med((r) => r.p99),
    peakRss: rounds[0]?.peakRss === null ? null : med((r) => r.peakRss as number),
    rssPerStream:
      rounds[0]?.peakRss === null
        ? null
        : med((r) => (((r.peakRss as number) - (r.rssBefore as number)) * 1024) / STREAMS.streams),
  };
};
const streams: StreamsReport = {
  ...STREAMS,
  rounds: STREAM_ROUNDS,
  direct: streamRow("direct"),
  bare: streamRow("bare proxy"),
  scan: streamRow("gateway, scan"),
  strip: streamRow("gateway, strip"),
  imageScan: streamRow("image gateway, scan"),
  idle: { start: idleAtStart, afterWarmup: idleAfterWarmup },
};
if (STREAMS_ONLY) {
  console.log(`\n${renderStreams(streams)}\n`);
  printSlowest();
  if (baseline) printStreamsAB(streamRow("baseline gateway, scan"), streamRow("baseline gateway, strip"));
  for (const child of children) child.kill("SIGTERM");
  await redis.stop();
  process.exit(0);
}

const saturated = await runSaturated();

// Memory: the gateway's peak resident set while 256 MiB stream through it.
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
const before = peakRssMiB(gateway.serving.pid as number);
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
const after = peakRssMiB(gateway.serving.pid as number);

// Invalidation: the two gateways are two replicas of one Redis; a key is revoked or disabled while the second
// serves it from its lease.
const changes = createRedis({ url: redis.url }, "cli");
await connectRedis(changes, { url: redis.url });
const invalidation = await measureInvalidation({
  context: openStores(changes, { prefix: USER_PREFIX, timezone: "UTC" }),
  accountId: "bench",
  gateways: [gatewayUrl, `http://127.0.0.1:${imagePort}`],
  trials: INVALIDATION_TRIALS,
});
closeRedis(changes);

const row = (name: string): PathFigures => {
  const r = results.get(name)!;
  return {
    p50: median(r.p50),
    p99: median(r.p99),
    cpu: median(r.cpu),
    redisCpu: name.includes("gateway") ? median(r.redisCpu) : null,
    upstreamCpu: median(r.upstreamCpu),
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
  image: row("gateway, image"),
  otelOn: row("gateway, OpenTelemetry on"),
  perRequest: row("gateway, per request"),
  metricsMicros: metricsMicrosPerRequest(),
  rssBefore: before,
  rssAfter: after,
  invalidation,
  streams,
  saturated,
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
  printStreamsAB(streamRow("baseline gateway, scan"), streamRow("baseline gateway, strip"));
}

/** Where each path's slowest 1 % of events fell, medians over the rounds (bench/streams.ts, Slowest). */
function printSlowest(): void {
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  for (const [name, rounds] of streamResults) {
    const med = (pick: (s: StreamRound["slowest"]) => number) => median(rounds.map((r) => pick(r.slowest)));
    console.log(
      `${name}: slowest 1 %: ${pct(med((s) => s.start))} among a stream's first 5 events, ` +
        `${pct(med((s) => s.end))} among its last 5, ${pct(med((s) => s.middle))} between; ` +
        `${med((s) => s.windows).toFixed(0)} windows of 2 ms, the fullest four holding ${pct(med((s) => s.inFourWindows))}; ` +
        `p99 of the middle events ${med((s) => s.p99Middle).toFixed(2)} ms`,
    );
    if ((rounds[0]?.slowest.inPause ?? null) === null) continue;
    const longest = (kind: string) => median(rounds.map((r) => r.slowest.longestPauses?.[kind] ?? 0));
    console.log(
      `  ${pct(med((s) => s.inPause as number))} of them on their way during a GC pause of the proxy; longest ` +
        `pauses (median round): scavenge ${longest("scavenge").toFixed(1)} ms, mark-compact ` +
        `${longest("mark-compact").toFixed(1)} ms, incremental marking ${longest("incremental marking").toFixed(1)} ms`,
    );
  }
}

/** The streams scenario's A/B lines: the baseline build against this one, scan and strip mode. */
function printStreamsAB(scan: StreamFigures, strip: StreamFigures): void {
  for (const [mode, a, b] of [
    ["scan", scan, streams.scan],
    ["strip", strip, streams.strip],
  ] as const) {
    console.log(
      `A/B streams (${mode}): proxy CPU per event ${a.proxyCpu?.toFixed(1)} → ${b.proxyCpu?.toFixed(1)} µs, ` +
        `tree ${a.treeCpu.toFixed(1)} → ${b.treeCpu.toFixed(1)} µs, p50 ${a.p50.toFixed(2)} → ${b.p50.toFixed(2)} ms, ` +
        `p99 ${a.p99.toFixed(2)} → ${b.p99.toFixed(2)} ms, peak RSS ${a.peakRss?.toFixed(0)} → ${b.peakRss?.toFixed(0)} MiB`,
    );
  }
}
if (WRITE_PAGE) {
  writeFileSync(PAGE, replaceGenerated(readFileSync(PAGE, "utf8"), figures));
  console.log(`written to ${PAGE}`);
}

process.exit(0);
