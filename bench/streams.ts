// The streams scenario of `npm run bench`: what a model server's real traffic — many long streams at once, a
// chunk every few tens of milliseconds each — costs on its way through a proxy. `streams` concurrent chat
// completions of `chunks` events each, one every `intervalMs`, their starts spread over one interval so that
// events leave evenly; the client takes each event's delay from the moment the model server wrote it (the
// event carries it, bench/stream-source.ts). Measured per path: CPU per streamed event of the serving process
// tree (model server, proxy, Redis) and of the proxy alone (with its Redis), event delay p50/p99, the proxy's resident set
// while the streams are open, and where the slowest 1 % of events fell (Slowest).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { percentile } from "./load.js";
import { cpuMicros } from "./servers.js";
import { STREAM_MODEL, writtenAt } from "./stream-source.js";
import type { Proc } from "./user-gateway.js";

export interface StreamSettings {
  streams: number;
  chunks: number;
  intervalMs: number;
}

export interface StreamTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Whether the client asks for usage itself (stream_options.include_usage). */
  asksUsage: boolean;
  /** The proxy's serving process (its memory is read); null when the model server is asked directly. */
  proxy: Proc | null;
  /** The proxy's own processes: the proxy's, and for the gateway its Redis (the proxy-alone CPU). */
  own: Proc[];
  /** Every process whose CPU serving the streams costs (the model server, the proxy, Redis). */
  tree: Proc[];
}

/** One path's figures in one round. CPU in µs per event, delays in ms, memory in MiB. */
export interface StreamRound {
  treeCpu: number;
  proxyCpu: number | null;
  p50: number;
  p99: number;
  /** The proxy's peak resident set while the streams were open, and just before they opened. */
  peakRss: number | null;
  rssBefore: number | null;
  events: number;
  failed: number;
  /** Where the events slower than the round's p99 fell (see slowest()). */
  slowest: Slowest;
}

/**
 * Where a round's slowest 1 % of events fell: among each stream's first or last EDGE events or in its middle,
 * and in how many 2 ms windows of arrival (a stall of the proxy delays every stream's event of one interval at
 * once, so a few windows holding most of them point at stalls, not at a cost per event); and the delay p99 of
 * the middle events alone, which the per-request work at a stream's start and end does not reach.
 */
export interface Slowest {
  start: number;
  middle: number;
  end: number;
  windows: number;
  /** The share of the slowest events in the four fullest windows. */
  inFourWindows: number;
  p99Middle: number;
  /**
   * With BENCH_GC_LOG: the share of the slowest events that were on their way while the proxy's main thread
   * was paused for a garbage collection, and the longest pause of each kind in the round (ms).
   */
  inPause: number | null;
  longestPauses: Record<string, number> | null;
}

const EDGE = 5;

/** One event as the client saw it: when it arrived (wall clock, ms), its delay, its place in its stream. */
type Seen = [arrivedMs: number, delayMs: number, index: number];

/** A garbage collection of a server, as bench/gc-log.cjs logs it. */
type Pause = [startMs: number, durationMs: number, kind: string];

/** The proxy's garbage collections from `from` to `to` (wall clock, ms), when BENCH_GC_LOG is set. */
function pausesOf(pid: number | undefined, from: number, to: number): Pause[] | null {
  const dir = process.env.BENCH_GC_LOG;
  if (dir === undefined || pid === undefined) return null;
  const file = join(dir, `gc-${pid}.txt`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.split(" "))
    .map(([start, duration, ...kind]): Pause => [Number(start), Number(duration), kind.join(" ")])
    .filter(([start, duration]) => start + duration >= from && start <= to);
}

function slowest(seen: Seen[], chunks: number, p99: number, pauses: Pause[] | null): Slowest {
  const slow = seen.filter(([, delay]) => delay > p99);
  const windows = new Map<number, number>();
  let start = 0;
  let end = 0;
  for (const [arrived, , index] of slow) {
    if (index < EDGE) start++;
    else if (index >= chunks - EDGE) end++;
    windows.set(Math.floor(arrived / 2), (windows.get(Math.floor(arrived / 2)) ?? 0) + 1);
  }
  const fullest = [...windows.values()].sort((a, b) => b - a).slice(0, 4);
  const share = (n: number) => n / Math.max(1, slow.length);
  const middle = seen
    .filter(([, , index]) => index >= EDGE && index < chunks - EDGE)
    .map(([, delay]) => delay);
  return {
    start: share(start),
    middle: share(slow.length - start - end),
    end: share(end),
    windows: windows.size,
    inFourWindows: share(fullest.reduce((sum, n) => sum + n, 0)),
    p99Middle: percentile(middle, 0.99),
    inPause:
      pauses === null
        ? null
        : share(
            slow.filter(([arrived, delay]) =>
              pauses.some(([start, duration]) => start <= arrived && start + duration >= arrived - delay),
            ).length,
          ),
    longestPauses:
      pauses === null
        ? null
        : pauses.reduce<Record<string, number>>((longest, [, duration, kind]) => {
            longest[kind] = Math.max(longest[kind] ?? 0, duration);
            return longest;
          }, {}),
  };
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * The memory only this process holds (private pages, clean and dirty), MiB: what ending it would free. Its
 * resident set would count again the node binary's pages it shares with every other Node process.
 */
export function privateMiB(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(rollup)?.[1] ?? 0);
  return (kib("Private_Clean") + kib("Private_Dirty")) / 1024;
}

function body(settings: StreamSettings, asksUsage: boolean): string {
  return JSON.stringify({
    model: STREAM_MODEL,
    max_tokens: settings.chunks,
    stream: true,
    ...(asksUsage && { stream_options: { include_usage: true } }),
    metadata: { interval_ms: settings.intervalMs },
    messages: [{ role: "user", content: "Stream something long." }],
  });
}

/** Runs the scenario once against one path. */
export async function measureStreams(target: StreamTarget, settings: StreamSettings): Promise<StreamRound> {
  const client = new Pool(target.url, { connections: settings.streams, pipelining: 1 });
  const payload = body(settings, target.asksUsage);
  const seen: Seen[] = [];
  let failed = 0;
  const proxyPid = target.proxy?.pid;
  const rssBefore = proxyPid === undefined ? null : rssMiB(proxyPid);
  let peakRss = rssBefore ?? 0;
  const sampler =
    proxyPid === undefined
      ? undefined
      : setInterval(() => {
          peakRss = Math.max(peakRss, rssMiB(proxyPid));
        }, 50);
  const cpuStart = target.tree.map((p) => cpuMicros(p));
  const ownStart = target.own.map((p) => cpuMicros(p));

  const roundStart = performance.timeOrigin + performance.now();
  const stream = async (index: number) => {
    await new Promise((resolve) => setTimeout(resolve, (index * settings.intervalMs) / settings.streams));
    const { statusCode, body: response } = await client.request({
      path: "/v1/chat/completions",
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body: payload,
    });
    if (statusCode !== 200) {
      failed++;
      await response.dump();
      return;
    }
    // An event may arrive split across chunks: keep the unfinished tail for the next one.
    let tail = "";
    let position = 0;
    for await (const chunk of response) {
      const now = process.hrtime.bigint();
      const arrived = performance.timeOrigin + performance.now();
      const text = tail + (chunk as Buffer).toString("latin1");
      let at = 0;
      for (;;) {
        const end = text.indexOf("\n\n", at);
        if (end === -1) break;
        const written = writtenAt(text.slice(at, end), 0);
        if (written !== null) seen.push([arrived, Number(now - written) / 1e6, position++]);
        at = end + 2;
      }
      tail = text.slice(at);
    }
  };
  await Promise.all(Array.from({ length: settings.streams }, (_, i) => stream(i)));
  clearInterval(sampler);
  await client.close();
  const treeCpu = target.tree.reduce((sum, p, i) => sum + cpuMicros(p) - (cpuStart[i] as number), 0);
  const roundEnd = performance.timeOrigin + performance.now();
  const delays = seen.map(([, delay]) => delay);
  const events = delays.length;
  const p99 = percentile(delays, 0.99);
  return {
    treeCpu: treeCpu / Math.max(1, events),
    proxyCpu:
      target.own.length === 0
        ? null
        : target.own.reduce((sum, p, i) => sum + cpuMicros(p) - (ownStart[i] as number), 0) /
          Math.max(1, events),
    p50: percentile(delays, 0.5),
    p99,
    peakRss: proxyPid === undefined ? null : peakRss,
    rssBefore,
    events,
    failed,
    slowest: slowest(seen, settings.chunks, p99, pausesOf(proxyPid, roundStart, roundEnd)),
  };
}
