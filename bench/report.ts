// The benchmark's report: one run's figures as Markdown, written into docs/benchmarks.md between the
// GENERATED_START and GENERATED_END markers. Everything outside the markers is written by hand (what is
// measured and how to read it); everything between them is replaced on every run, so the page only ever
// shows the figures of the last run, with the machine, the date and the command that produced them.

import { execFileSync } from "node:child_process";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import type { FastPathFigures } from "./fast-paths.js";
import { met, ms, signedMs, signedPercent, whole } from "./format.js";
import type { InvalidationFigures } from "./invalidation.js";
import type { SaturatedFigures } from "./saturated.js";
import { targetLines } from "./targets.js";

export const GENERATED_START =
  "<!-- bench:start: written by npm run bench (bench/report.ts), do not edit -->";
export const GENERATED_END = "<!-- bench:end -->";
/** The markers around the CPU breakdown `npm run bench:profile` writes (bench/profile.ts). */
export const PROFILE_MARKERS = [
  "<!-- bench-profile:start: written by npm run bench:profile (bench/profile.ts), do not edit -->",
  "<!-- bench-profile:end -->",
] as const;

/** Medians over the rounds for one path. Times in ms, CPU in µs per request. */
export interface PathFigures {
  p50: number;
  p99: number;
  cpu: number;
  /** Redis' CPU per request while this path was measured; shown for the gateways only. */
  redisCpu: number | null;
  /** The model server's CPU per request meanwhile: with the proxy's, the serving processes'. */
  upstreamCpu: number;
  rps: number;
  ttfb: number;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** One-minute load average when the run started: other work on the machine moves the figures. */
  loadAtStart: number;
}

export interface BenchReport {
  /** When the run finished, ISO 8601. */
  date: string;
  /** The commit the code was at, with "+ uncommitted changes" when src/ or bench/ differed from it. */
  commit: string | null;
  command: string;
  rounds: number;
  seconds: number;
  rate: number;
  machine: Machine;
  direct: PathFigures;
  bare: PathFigures;
  /** The gateway as the README starts it (log lines to a file). */
  gateway: PathFigures;
  /** The gateway as the image and the chart start it (their environment, log lines to a drained pipe). */
  image: PathFigures;
  /** The gateway with OpenTelemetry on, every request traced, exporting over OTLP/HTTP to a local sink. */
  otelOn?: PathFigures;
  /** The gateway with a key that is never leased (it has limits): every request reserves in Redis. */
  perRequest?: PathFigures;
  /** CPU that metrics add to one request, measured in-process (µs). */
  metricsMicros: number;
  /** The gateway's peak RSS before and after 256 MiB streamed through it (MiB). */
  rssBefore: number;
  rssAfter: number;
  /** How soon the other replica stops admitting a revoked or disabled key on its lease. */
  invalidation?: InvalidationFigures;
  streams?: StreamsReport;
  /** A full model server shared by a noisy and a quiet account, with fair sharing and without (saturated.ts). */
  saturated?: SaturatedFigures;
  /** The fast paths into libraries' insides against the libraries' public ways, in-process (fast-paths.ts). */
  fastPaths?: FastPathFigures[];
}

/** One path's figures in the streams scenario, medians over its rounds. */
export interface StreamFigures {
  /** CPU per streamed event of every process serving it (model server, proxy, Redis), µs. */
  treeCpu: number;
  /** CPU per streamed event of the proxy alone, µs; null for the model server asked directly. */
  proxyCpu: number | null;
  /** Each event's delay from the model server's write to the client, ms. */
  p50: number;
  p99: number;
  /** The proxy's peak resident set while the streams were open, MiB. */
  peakRss: number | null;
  /** What each open stream adds to the proxy's resident set, KiB. */
  rssPerStream: number | null;
}

export interface StreamsReport {
  streams: number;
  chunks: number;
  intervalMs: number;
  rounds: number;
  direct: StreamFigures;
  bare: StreamFigures;
  /** The gateway when the client asks for usage itself: it only scans the stream. */
  scan: StreamFigures;
  /** The gateway when it adds the usage request itself, and takes its answer out of the stream. */
  strip: StreamFigures;
  /** The gateway started as the image does, scan mode. */
  imageScan: StreamFigures;
  /** Resident sets (MiB) of the bare proxy and the gateways once serving, and after the warm-up. */
  idle: { start: IdleRss; afterWarmup: IdleRss };
}

/** Resident sets (MiB): the bare proxy's, the serving process of each way of starting the gateway. */
export interface IdleRss {
  bare: number;
  gateway: number;
  image: number;
  /** The private memory of the process `node dist/cli.js serve` keeps waiting for the one it relaunched (0 when it did not). */
  launcher: number;
}

export function describeMachine(loadAtStart = loadavg()[0] ?? 0): Machine {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? "unknown CPU",
    cores: processors.length,
    memoryGiB: totalmem() / 2 ** 30,
    os: `${type()} ${release()}`,
    node: process.version,
    loadAtStart,
  };
}

/** The command that repeats a run: `npm run bench`, with the length settings that differ from the defaults. */
export function benchCommand(rounds: number, seconds: number, defaults: { rounds: number; seconds: number }) {
  const settings = [
    ...(rounds !== defaults.rounds ? [`BENCH_ROUNDS=${rounds}`] : []),
    ...(seconds !== defaults.seconds ? [`BENCH_SECONDS=${seconds}`] : []),
  ];
  return [...settings, "npm run bench"].join(" ");
}

/** The commit the working tree is at, or null outside a git checkout. */
export function currentCommit(cwd: string): string | null {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
    const commit = git("rev-parse", "--short=12", "HEAD");
    const dirty = git("status", "--porcelain", "--", "src", "bench", "package.json", "package-lock.json");
    return dirty === "" ? commit : `${commit} + uncommitted changes`;
  } catch {
    return null;
  }
}

/** The generated part of docs/benchmarks.md, markers excluded. */
export function renderFigures(report: BenchReport): string {
  const { machine: m, direct, bare, gateway: gw } = report;
  const paths: [string, PathFigures][] = [
    ["direct to the model server", direct],
    ["bare http-proxy-3 (reads and parses the body)", bare],
    ["tunnel-gateway as the README starts it (log lines to a file)", gw],
    ["tunnel-gateway as the image and the chart start it (log lines to a drained pipe)", report.image],
    ...(report.otelOn
      ? ([["tunnel-gateway (README), OpenTelemetry on, 100 % sampled", report.otelOn]] as [
          string,
          PathFigures,
        ][])
      : []),
    ...(report.perRequest
      ? ([["tunnel-gateway (README), key never leased (reserves per request)", report.perRequest]] as [
          string,
          PathFigures,
        ][])
      : []),
  ];
  const proxyCpu = (r: PathFigures) => r.cpu + (r.redisCpu ?? 0);
  const lines = [
    `Run on ${report.date.slice(0, 10)} at ${report.date.slice(11, 16)} UTC, ${report.commit ? `code at commit \`${report.commit}\`, ` : ""}` +
      `with \`${report.command}\`: ${report.rounds} interleaved rounds of ${report.seconds} s, medians.`,
    "",
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB.toFixed(0)} GiB of memory, ${m.os}, Node ${m.node}; ` +
      `load average ${m.loadAtStart.toFixed(2)} when the run started. The load generator, the model server, the ` +
      "bare proxy, the gateways and Redis all ran on this machine.",
    "",
    "Small requests. CPU per request: the proxy alone (its processes, and for the gateway its Redis, in brackets), " +
      "and the serving processes (with the model server's).",
    "",
    `| path | p50 @ ${report.rate}/s | p99 @ ${report.rate}/s | CPU per request, proxy alone (Redis) | CPU per request, serving processes | max req/s | stream TTFB p50 |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...paths.map(
      ([name, r]) =>
        `| ${name} | ${ms(r.p50)} | ${ms(r.p99)} | ${r === direct ? "—" : `${whole(proxyCpu(r))} µs`}${r.redisCpu === null ? "" : ` (${whole(r.redisCpu)} µs)`} | ${whole(proxyCpu(r) + r.upstreamCpu)} µs | ${whole(r.rps)} | ${ms(r.ttfb)} |`,
    ),
    "",
    ...targetLines(report),
    "",
    `In-process, the metrics calls of one request cost ${report.metricsMicros.toFixed(1)} µs of CPU, ` +
      `${((report.metricsMicros / gw.cpu) * 100).toFixed(1)} % of the gateway's CPU per request. Peak resident ` +
      `set while 256 MiB stream through the gateway: ${whole(report.rssBefore)} → ${whole(report.rssAfter)} MiB ` +
      `(bounded: ${met(report.rssAfter - report.rssBefore < 64)}).`,
    ...(report.otelOn
      ? [
          "",
          `OpenTelemetry on, every request traced and the GenAI metrics recorded, exported over OTLP/HTTP to a ` +
            `local sink: ${signedPercent(((proxyCpu(report.otelOn) - proxyCpu(gw)) / proxyCpu(gw)) * 100)} CPU per request ` +
            `(proxy alone, ${whole(proxyCpu(report.otelOn) - proxyCpu(gw))} µs), p99 ${(report.otelOn.p99 / gw.p99).toFixed(2)}×, ` +
            `throughput ${((report.otelOn.rps / gw.rps) * 100).toFixed(0)} % of the gateway's with it off.`,
        ]
      : []),
    ...(report.invalidation ? ["", ...invalidationLines(report.invalidation)] : []),
    ...(report.streams ? ["", renderStreams(report.streams)] : []),
    ...(report.saturated ? ["", renderSaturated(report.saturated)] : []),
    ...(report.fastPaths ? ["", ...fastPathLines(report.fastPaths)] : []),
  ];
  return lines.join("\n");
}

/** The streams scenario's table: every path, and the proxies' idle resident sets. */
export function renderStreams(report: StreamsReport): string {
  const { bare, idle } = report;
  const us = (n: number | null) => (n === null ? "—" : `${n.toFixed(1)} µs`);
  const mib = (n: number | null) => (n === null ? "—" : `${whole(n)} MiB`);
  const kib = (n: number | null) => (n === null ? "—" : `${whole(n)} KiB`);
  const paths: [string, StreamFigures][] = [
    ["direct to the model server", report.direct],
    ["bare http-proxy-3", bare],
    ["tunnel-gateway (README), the client asks for usage (scan)", report.scan],
    ["tunnel-gateway (README), the gateway adds the usage request (strip)", report.strip],
    ["tunnel-gateway (image), scan", report.imageScan],
  ];
  const launcher =
    idle.afterWarmup.launcher > 0
      ? `; the README's way also keeps the process that relaunched the serving one with the image's V8 flags, ` +
        `holding ${mib(idle.afterWarmup.launcher)} of its own (private pages; the rest of its resident set is shared)`
      : "";
  return [
    `Streams: ${report.streams} streams at once of ${report.chunks} events each, one every ${report.intervalMs} ms ` +
      `(${whole((report.streams * 1000) / report.intervalMs)} events/s), ${report.rounds} interleaved rounds, medians. ` +
      "An event's delay runs from the model server's write to the client's read. CPU per event of the proxy " +
      "alone (its processes, and for the gateway its Redis) and of the serving processes (with the model server).",
    "",
    "| path | CPU per event, proxy alone | CPU per event, serving processes | delay p50 | delay p99 | peak RSS | RSS per open stream |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...paths.map(
      ([name, r]) =>
        `| ${name} | ${us(r.proxyCpu)} | ${us(r.treeCpu)} | ${ms(r.p50)} | ${ms(r.p99)} | ${mib(r.peakRss)} | ${kib(r.rssPerStream)} |`,
    ),
    "",
    `Idle resident set of the serving process: bare proxy ${mib(idle.start.bare)} once serving, ` +
      `${mib(idle.afterWarmup.bare)} after the warm-up; gateway as the README starts it ${mib(idle.start.gateway)} ` +
      `and ${mib(idle.afterWarmup.gateway)}, as the image starts it ${mib(idle.start.image)} and ` +
      `${mib(idle.afterWarmup.image)}${launcher}.`,
  ].join("\n");
}

/** The saturated scenario: each account's time to first byte with fair sharing and without. */
export function renderSaturated(s: SaturatedFigures): string {
  const row = (path: string, account: string, f: SaturatedFigures["fair"]["noisy"]) =>
    `| ${path} | ${account} | ${ms(f.p50)} | ${ms(f.p99)} | ${whole(f.requests)} |`;
  const quietAdded = s.fair.quiet.p99 - s.serviceMs;
  return [
    `Saturated: a model server that runs ${s.capacity} requests at once, each for ${s.serviceMs} ms, and queues the ` +
      `rest first come, first served; a noisy account keeping ${s.noisyConcurrency} requests in flight (twenty ` +
      `times its share of the places) and a quiet account sending one every ${s.quietIntervalMs} ms, for ` +
      `${s.seconds} s, ${s.rounds} interleaved rounds; times to first byte, each account's pooled over the rounds. ` +
      `Fair sharing: \`upstream.maxInFlight: ${s.capacity}\`; without, the server's own queue.`,
    "",
    "| path | account | time to first byte p50 | p99 | requests |",
    "| --- | --- | --- | --- | --- |",
    row("fair sharing", "quiet", s.fair.quiet),
    row("fair sharing", "noisy", s.fair.noisy),
    row("first come, first served", "quiet", s.firstCome.quiet),
    row("first come, first served", "noisy", s.firstCome.noisy),
    "",
    "| the quiet account with fair sharing | target | this run | |",
    "| --- | --- | --- | --- |",
    `| p99 wait added to its service time | ≤ one service time (${s.serviceMs} ms) | ${signedMs(quietAdded)} | ${met(quietAdded <= s.serviceMs)} |`,
  ].join("\n");
}

/** Each fast path is kept while it saves CPU where the gateway uses it (see the comment of each module). */
function fastPathLines(figures: FastPathFigures[]): string[] {
  const micros = (n: number) => `${n.toFixed(2)} µs`;
  return [
    "| a fast path into a library, against its public way (in-process, CPU) | fast path | public way | saved |",
    "| --- | --- | --- | --- |",
    ...figures.map(
      (f) =>
        `| ${f.what} | ${micros(f.fast)} | ${micros(f.public)} | ${signedPercent((1 - f.fast / f.public) * 100)} |`,
    ),
  ];
}

function invalidationLines(inv: InvalidationFigures): string[] {
  const within = inv.windowMax <= 50 && inv.refusedMax <= 100;
  return [
    "| a revoked or disabled key on the other replica's lease | target | this run | |",
    "| --- | --- | --- | --- |",
    `| last request admitted, after the change's reply (median, worst of ${inv.trials}) | ≤ 50 ms, never > 100 ms | ${ms(inv.windowP50)}, ${ms(inv.windowMax)} | ${met(within)} |`,
    `| first refusal, after the change's reply (median, worst) | | ${ms(inv.refusedP50)}, ${ms(inv.refusedMax)} | |`,
    `| requests sent after the reply and still admitted (all trials, most in one) | | ${inv.admittedAfter}, ${inv.mostAdmittedAfter} | |`,
  ];
}

/** One process's figures in the profile run, per request: main-thread CPU by owner and by file (µs). */
export interface ProfileFigures {
  owners: Map<string, number>;
  /** The gateway's own code by file (empty for the bare proxy). */
  files: Map<string, number>;
  /** The same, by stage of the pipeline or part of the request path (profile-breakdown.ts's gatewayPart). */
  parts: Map<string, number>;
  /** Main thread's and whole process' CPU (µs), from /proc. */
  main: number;
  process: number;
  allocatedKiB: number;
}

export interface ProfileReport {
  date: string;
  commit: string | null;
  rounds: number;
  seconds: number;
  rate: number;
  machine: Machine;
  bare: ProfileFigures;
  gateway: ProfileFigures;
}

/** Files of the gateway's own code listed, the most expensive first. */
const FILES_SHOWN = 12;
/** The owner label profile-breakdown.ts gives the measured program's own code. */
const OWN_CODE = "gateway";

/** The profile's part of docs/benchmarks.md, markers excluded. */
export function renderProfile(report: ProfileReport): string {
  const { machine: m, bare, gateway } = report;
  const owners = [...new Set([...bare.owners.keys(), ...gateway.owners.keys()])];
  const at = (figures: ProfileFigures, owner: string) => figures.owners.get(owner) ?? 0;
  // Owners below 1 µs per request in both processes are summed into one row.
  const shown = owners
    .filter((o) => at(bare, o) >= 1 || at(gateway, o) >= 1)
    .sort((x, y) => at(gateway, y) - at(gateway, x));
  const rest = owners.filter((o) => !shown.includes(o));
  const restOf = (figures: ProfileFigures) => rest.reduce((sum, o) => sum + at(figures, o), 0);
  const us = (n: number) => `${n.toFixed(0)} µs`;
  const kib = (n: number) => `${n.toFixed(0)} KiB`;
  const signed = (n: number, unit: (n: number) => string) => `${n < 0 ? "−" : "+"}${unit(Math.abs(n))}`;
  const row = (name: string, x: number, y: number, unit = us) =>
    `| ${name} | ${unit(x)} | ${unit(y)} | ${signed(y - x, unit)} |`;
  return [
    `Run on ${report.date.slice(0, 10)} at ${report.date.slice(11, 16)} UTC` +
      `${report.commit ? `, code at commit \`${report.commit}\`` : ""}, with \`npm run bench:profile\`: ` +
      `${report.rounds} rounds of ${report.seconds} s at ${report.rate} requests/s per process, ` +
      `on ${m.cpu}, ${m.cores} cores, Node ${m.node}.`,
    "",
    "| main-thread CPU per request, by who spends it | bare proxy | gateway | gateway − bare |",
    "| --- | --- | --- | --- |",
    ...shown.map((o) =>
      row(
        o === OWN_CODE ? "its own code (the bare proxy's script, the gateway's src/)" : o,
        at(bare, o),
        at(gateway, o),
      ),
    ),
    ...(rest.length > 0 ? [row(`others (${rest.join(", ")})`, restOf(bare), restOf(gateway))] : []),
    row("main thread (from /proc)", bare.main, gateway.main),
    row("whole process (all threads, from /proc)", bare.process, gateway.process),
    row(
      "memory allocated per request (sampled, garbage included)",
      bare.allocatedKiB,
      gateway.allocatedKiB,
      kib,
    ),
    "",
    "| the gateway's own code, by pipeline stage or part (the per-stage CPU budget) | main-thread CPU per request |",
    "| --- | --- |",
    ...[...gateway.parts].sort((x, y) => y[1] - x[1]).map(([part, micros]) => `| ${part} | ${us(micros)} |`),
    `| all of the gateway's own code | ${us([...gateway.parts.values()].reduce((a, b) => a + b, 0))} |`,
    "",
    "| the gateway's own code, by file | main-thread CPU per request |",
    "| --- | --- |",
    ...[...gateway.files]
      .sort((x, y) => y[1] - x[1])
      .slice(0, FILES_SHOWN)
      .map(([file, micros]) => `| \`${file}\` | ${us(micros)} |`),
  ].join("\n");
}

/** The page with its generated part replaced; everything outside the markers is kept as it is. */
export function replaceGenerated(
  page: string,
  generated: string,
  [startMarker, endMarker]: readonly [string, string] = [GENERATED_START, GENERATED_END],
): string {
  const start = page.indexOf(startMarker);
  const end = page.indexOf(endMarker);
  if (start === -1 || end === -1 || end < start || page.indexOf(startMarker, start + 1) !== -1)
    throw new Error(
      `the page must hold exactly one ${startMarker} … ${endMarker} pair, in that order, around its figures`,
    );
  return `${page.slice(0, start + startMarker.length)}\n${generated}\n${page.slice(end)}`;
}
