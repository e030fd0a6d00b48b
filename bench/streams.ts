// The streams scenario of `npm run bench`: what a model server's real traffic — many long streams at once, a
// chunk every few tens of milliseconds each — costs on its way through a proxy. `streams` concurrent chat
// completions of `chunks` events each, one every `intervalMs`, their starts spread over one interval so that
// events leave evenly; the client takes each event's delay from the moment the model server wrote it (the
// event carries it, bench/stream-source.ts). Measured per path: CPU per streamed event of the serving process
// tree (model server, proxy, Redis) and of the proxy alone, event delay p50/p99, and the proxy's resident set
// while the streams are open.

import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { Pool } from "undici";
import { percentile } from "./load.js";
import { cpuMicros } from "./servers.js";
import { STREAM_MODEL, writtenAt } from "./stream-source.js";

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
  /** The proxy's process; null when the model server is asked directly. */
  proxy: ChildProcess | null;
  /** Every process whose CPU serving the streams costs (the model server, the proxy, Redis). */
  tree: ChildProcess[];
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
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
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
  const delays: number[] = [];
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
  const proxyStart = target.proxy ? cpuMicros(target.proxy) : 0;

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
    for await (const chunk of response) {
      const now = process.hrtime.bigint();
      const text = tail + (chunk as Buffer).toString("latin1");
      let at = 0;
      for (;;) {
        const end = text.indexOf("\n\n", at);
        if (end === -1) break;
        const written = writtenAt(text.slice(at, end), 0);
        if (written !== null) delays.push(Number(now - written) / 1e6);
        at = end + 2;
      }
      tail = text.slice(at);
    }
  };
  await Promise.all(Array.from({ length: settings.streams }, (_, i) => stream(i)));
  clearInterval(sampler);
  await client.close();
  const treeCpu = target.tree.reduce((sum, p, i) => sum + cpuMicros(p) - (cpuStart[i] as number), 0);
  const events = delays.length;
  return {
    treeCpu: treeCpu / Math.max(1, events),
    proxyCpu: target.proxy ? (cpuMicros(target.proxy) - proxyStart) / Math.max(1, events) : null,
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
    peakRss: proxyPid === undefined ? null : peakRss,
    rssBefore,
    events,
    failed,
  };
}
