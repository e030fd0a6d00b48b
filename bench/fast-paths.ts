// A/B of the places the gateway reaches into a library's insides for speed, each against the library's public
// way of doing the same, in-process and interleaved (A, B, B, A, … so that neither always runs first), so that
// each trick is kept only while it pays for itself:
//   - metric series written in prom-client's own table (observability/fast-series.ts) against its labelled
//     children, for the metric updates of one forwarded request;
//   - the commands of one event-loop turn written to Redis together (store/connection/write-batching.ts) against ioredis
//     writing each on its own, counting the CPU of this process and of Redis per command;
//   - the request body handed to http-proxy-3 as a stand-in (proxy/body-source.ts) against Readable.from.
// npm run bench runs it last and writes its figures into docs/benchmarks.md; on its own:
//
//   npx tsx bench/fast-paths.ts [seconds per comparison, default 3]

import { performance } from "node:perf_hooks";
import { Readable, Writable } from "node:stream";
import { type Gauge, type Histogram, Registry } from "prom-client";
import { startRedisServer } from "../src/demo/redis-server.js";
import {
  type CounterSeries,
  counterSeries,
  type GaugeSeries,
  gaugeSeries,
  type HistogramSeries,
  histogramSeries,
} from "../src/observability/fast-series.js";
import { METRICS } from "../src/observability/metric-definitions.js";
import { buildMetrics } from "../src/observability/metric-registry.js";
import { bodySource } from "../src/proxy/relay/body-source.js";
import { closeRedis, connectRedis, createRedis, type RedisClient } from "../src/store/connection/redis.js";
import { runScript } from "../src/store/scripts.js";

const ROUNDS = 6;

/** One fast path against the library's public way: CPU per operation (µs), medians over the rounds. */
export interface FastPathFigures {
  /** What is done, and the unit of an operation. */
  what: string;
  fast: number;
  public: number;
}

interface Arm {
  name: string;
  /** Runs `count` operations; resolves with the CPU they took (µs), this process and whatever else counts. */
  run(count: number): Promise<number>;
}

/** The arms' CPU per operation, medians over ROUNDS interleaved rounds, about `seconds` in all. */
async function ab(what: string, a: Arm, b: Arm, seconds: number): Promise<FastPathFigures> {
  // Calibrate a round's size on A, warming both up meanwhile.
  let count = 1000;
  for (;;) {
    const started = performance.now();
    await a.run(count);
    await b.run(count);
    if (performance.now() - started > (seconds * 1000) / ROUNDS / 4) break;
    count *= 2;
  }
  const per: Record<string, number[]> = { [a.name]: [], [b.name]: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const arm of round % 2 === 0 ? [a, b] : [b, a]) per[arm.name]?.push((await arm.run(count)) / count);
  }
  const median = (values: number[]) =>
    [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  return { what, fast: median(per[a.name] as number[]), public: median(per[b.name] as number[]) };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The metric updates of one forwarded request, as Metrics makes them, on series of either kind. */
function metricsArm(name: string, fast: boolean): Arm {
  const m = buildMetrics(new Registry(), {});
  const model = { model: "demo-small" };
  const key = { account: "bench", key_id: "key_00000000000000000000", key_name: "bench" };
  const counter = (metric: (typeof m)["requests"], labels: Record<string, string>): CounterSeries =>
    fast ? counterSeries(metric, labels) : metric.labels(labels);
  const histogram = (
    metric: (typeof m)["duration"],
    labels: Record<string, string>,
    buckets: readonly number[],
  ): HistogramSeries =>
    fast ? histogramSeries(metric, labels, buckets) : (metric as Histogram<string>).labels(labels);
  const gauge = (metric: (typeof m)["accountBalance"], labels: Record<string, string>): GaugeSeries =>
    fast ? gaugeSeries(metric, labels) : (metric as Gauge<string>).labels(labels);
  const s = {
    requests: counter(m.requests, { ...model, status: "200" }),
    duration: histogram(m.duration, model, METRICS.duration.buckets),
    ttfb: histogram(m.ttfb, model, METRICS.ttfb.buckets),
    overhead: histogram(m.overhead, {}, METRICS.overhead.buckets),
    prompt: counter(m.tokens, { ...model, kind: "prompt" }),
    completion: counter(m.tokens, { ...model, kind: "completion" }),
    spend: counter(m.spend, { ...model, account: "bench" }),
    keyDuration: histogram(m.keyDuration, key, METRICS.keyDuration.buckets),
    keySpend: counter(m.keySpend, key),
    balance: gauge(m.accountBalance, { account: "bench" }),
    reserve: histogram(m.redisDuration, { operation: "reserve" }, METRICS.redisDuration.buckets),
    settle: histogram(m.redisDuration, { operation: "settle" }, METRICS.redisDuration.buckets),
  };
  let sink = 0;
  return {
    name,
    async run(count) {
      const start = cpuMicros();
      for (let i = 0; i < count; i++) {
        // Latencies that differ from request to request, and other numbers turned into text in between, as
        // the rest of the request path does: V8's cache of number-to-string conversions sees what it would.
        const latency = 0.001 + (i % 97) * 0.0001;
        sink += String(latency * 7).length + String(i * 1.5).length;
        s.reserve.observe(latency / 5);
        s.requests.inc();
        s.duration.observe(latency);
        s.ttfb.observe(latency / 2);
        s.overhead.observe(latency / 10);
        s.prompt.inc(12);
        s.completion.inc(16);
        s.spend.inc(0.000028);
        s.keyDuration.observe(latency);
        s.keySpend.inc(0.000028);
        s.settle.observe(latency / 4);
        s.balance.set(999 - i * 0.000028);
      }
      if (sink < 0) console.log(sink);
      return cpuMicros() - start;
    },
  };
}

/** Redis' own CPU so far (µs), from INFO. */
async function redisCpuMicros(redis: RedisClient): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field("used_cpu_sys") + field("used_cpu_user")) * 1e6;
}

/** `perTurn` scripts issued in the same event-loop turn, turn after turn, as requests under load do. */
function redisArm(name: string, redis: RedisClient, probe: RedisClient, perTurn: number, key: string): Arm {
  const script = () => runScript<number>(redis, "extendReservations", [key], [Date.now(), "none"]);
  return {
    name,
    async run(count) {
      const redisBefore = await redisCpuMicros(probe);
      const start = cpuMicros();
      for (let i = 0; i < count; i += perTurn) {
        const turn: Promise<number>[] = [];
        for (let j = 0; j < perTurn; j++) turn.push(script());
        await Promise.all(turn);
      }
      const own = cpuMicros() - start;
      return own + (await redisCpuMicros(probe)) - redisBefore;
    },
  };
}

/** The body handed over as http-proxy-3 hands it on: piped into the upstream request, which is ended. */
function bodyArm(name: string, source: (body: Buffer) => Readable): Arm {
  const body = Buffer.from(
    JSON.stringify({ model: "demo-small", messages: [{ role: "user", content: "hi" }] }),
  );
  return {
    name,
    async run(count) {
      const start = cpuMicros();
      for (let i = 0; i < count; i++) {
        const destination = new Writable({
          write(_chunk, _encoding, callback) {
            callback();
          },
        });
        const finished = new Promise((resolve) => destination.once("finish", resolve));
        source(body).pipe(destination);
        await finished;
      }
      return cpuMicros() - start;
    },
  };
}

/** Each fast path against the library's public way, about `seconds` each (Redis: per commands-per-turn). */
export async function measureFastPaths(seconds: number): Promise<FastPathFigures[]> {
  const figures = [
    await ab(
      "prom-client: the metric updates of one request",
      metricsArm("fast series (fast-series.ts)", true),
      metricsArm("prom-client's labelled children", false),
      seconds,
    ),
  ];
  const server = await startRedisServer();
  try {
    const settings = { url: server.url };
    const batched = createRedis(settings, "gateway");
    const plain = createRedis(settings, "cli");
    const probe = createRedis(settings, "cli");
    for (const client of [batched, plain, probe]) await connectRedis(client, settings);
    for (const perTurn of [1, 2, 4, 16]) {
      figures.push(
        await ab(
          `ioredis: a script, ${perTurn} issued per event-loop turn (this process and Redis)`,
          redisArm("written per turn (write-batching.ts)", batched, probe, perTurn, "bench:a"),
          redisArm("written one by one (ioredis as it is)", plain, probe, perTurn, "bench:b"),
          seconds,
        ),
      );
    }
    for (const client of [batched, plain, probe]) closeRedis(client);
  } finally {
    await server.stop();
  }
  figures.push(
    await ab(
      "http-proxy-3: the body of one request handed over",
      bodyArm("stand-in (body-source.ts)", bodySource),
      bodyArm("Readable.from", (body) => Readable.from([body])),
      seconds,
    ),
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { what, fast, public: plain } of await measureFastPaths(Number(process.argv[2] ?? 3))) {
    const saved = ((1 - fast / plain) * 100).toFixed(1);
    console.log(`${what}\n  fast ${fast.toFixed(3)} µs, public ${plain.toFixed(3)} µs: ${saved} % saved`);
  }
}
