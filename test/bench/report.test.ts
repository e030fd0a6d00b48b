import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type BenchReport,
  benchCommand,
  GENERATED_END,
  GENERATED_START,
  PROFILE_MARKERS,
  renderFigures,
  renderProfile,
  renderSaturated,
  replaceGenerated,
} from "../../bench/report.js";

const PAGE = new URL("../../docs/benchmarks.md", import.meta.url);

const report: BenchReport = {
  date: "2026-11-23T10:00:00Z",
  commit: "0123456789ab",
  command: "BENCH_ROUNDS=1 npm run bench",
  rounds: 1,
  seconds: 5,
  rate: 500,
  machine: { cpu: "Test CPU", cores: 2, memoryGiB: 8, os: "Linux 6.1", node: "v20.20.2", loadAtStart: 0.5 },
  direct: { p50: 0.36, p99: 1.09, cpu: 0, redisCpu: null, upstreamCpu: 196, rps: 18634, ttfb: 0.33 },
  bare: { p50: 0.79, p99: 3.74, cpu: 524, redisCpu: null, upstreamCpu: 190, rps: 4351, ttfb: 0.83 },
  gateway: { p50: 1.2, p99: 12.38, cpu: 1036, redisCpu: 208, upstreamCpu: 180, rps: 2486, ttfb: 1.51 },
  image: { p50: 0.9, p99: 7.4, cpu: 500, redisCpu: 200, upstreamCpu: 180, rps: 3400, ttfb: 1.0 },
  metricsMicros: 2.1,
  rssBefore: 80,
  rssAfter: 96,
  fastPaths: [{ what: "prom-client: the metric updates of one request", fast: 0.45, public: 4.96 }],
};

const page = (generated: string) =>
  `# Benchmarks\n\nBy hand.\n\n${GENERATED_START}\n${generated}\n${GENERATED_END}\n\n## After\n`;

describe("the benchmark report", () => {
  it("names the date, the commit, the command, the machine and the load it ran under", () => {
    const text = renderFigures(report);
    expect(text).toContain("Run on 2026-11-23 at 10:00 UTC");
    expect(text).toContain("`0123456789ab`");
    expect(text).toContain("`BENCH_ROUNDS=1 npm run bench`: 1 interleaved rounds of 5 s");
    expect(text).toContain("Test CPU, 2 cores, 8 GiB of memory, Linux 6.1, Node v20.20.2");
    expect(text).toContain("load average 0.50");
  });

  it("tabulates every path's CPU, the proxy alone (with Redis for the gateways) and the serving processes", () => {
    const text = renderFigures(report);
    expect(text).toContain(
      "| direct to the model server | 0.36 ms | 1.09 ms | — | 196 µs | 18 634 | 0.33 ms |",
    );
    expect(text).toContain(
      "| bare http-proxy-3 (reads and parses the body) | 0.79 ms | 3.74 ms | 524 µs | 714 µs |",
    );
    expect(text).toContain(
      "| tunnel-gateway as the README starts it (log lines to a file) | 1.20 ms | 12.38 ms | 1 244 µs (208 µs) | 1 424 µs | 2 486 | 1.51 ms |",
    );
    expect(text).toContain(
      "| tunnel-gateway as the image and the chart start it (log lines to a drained pipe) | 0.90 ms |",
    );
  });

  it("tabulates what each fast path into a library saves against its public way", () => {
    expect(renderFigures(report)).toContain(
      "| prom-client: the metric updates of one request | 0.45 µs | 4.96 µs | +90.9 % |",
    );
  });

  it("tabulates each account's time to first byte in the saturated scenario, with fair sharing and without", () => {
    const account = (p50: number, p99: number, requests: number) => ({ p50, p99, requests });
    const saturated = {
      capacity: 8,
      serviceMs: 100,
      seconds: 8,
      quietIntervalMs: 50,
      rounds: 2,
      noisyConcurrency: 80,
      fair: { quiet: account(140, 195.5, 300), noisy: account(1240, 1490, 1500) },
      firstCome: { quiet: account(1219.5, 1313.2, 290), noisy: account(1107, 1314, 1600) },
    };
    const text = renderSaturated(saturated);
    expect(text).toContain("keeping 80 requests in flight");
    expect(text).toContain("| fair sharing | quiet | 140.00 ms | 195.50 ms | 300 |");
    expect(text).toContain("| first come, first served | quiet | 1219.50 ms | 1313.20 ms | 290 |");
    expect(text).toContain(
      "| p99 wait added to its service time | ≤ one service time (100 ms) | +95.50 ms | met |",
    );
    expect(renderFigures({ ...report, saturated })).toContain(text);
    expect(renderFigures(report)).not.toContain("Saturated:");
  });

  it("judges issue 33's targets on the proxy-alone figures, for each way of starting the gateway", () => {
    const text = renderFigures(report);
    expect(text).toContain(
      "| small requests: throughput | ≥ 0.75× the bare proxy | 0.57× | not met | 0.78× | met |",
    );
    expect(text).toContain(
      "| small requests: CPU per request (gateway + its Redis) | ≤ 1.5× | 2.37× | not met | 1.34× | met |",
    );
    expect(text).toContain(
      "| small requests: p50 added @ 500/s | ≤ +0.15 ms | +0.41 ms | not met | +0.11 ms | met |",
    );
    expect(text).toContain("| small requests: p99 @ 500/s | ≤ 2× | 3.31× | not met | 1.98× | met |");
    expect(text).toContain("| stream TTFB added | ≤ +0.3 ms | +0.68 ms | not met | +0.17 ms | met |");
    expect(text).toContain("80 → 96 MiB (bounded: met)");
    expect(text).not.toContain("OpenTelemetry 100 %");
  });

  it("judges the streams' targets on the proxy's own CPU, and OpenTelemetry's against it off", () => {
    const stream = (proxyCpu: number, p99: number, rssPerStream: number) => ({
      treeCpu: proxyCpu + 17,
      proxyCpu,
      p50: 0.5,
      p99,
      peakRss: 100,
      rssPerStream,
    });
    const idle = { bare: 50, gateway: 80, image: 95, launcher: 5 };
    const text = renderFigures({
      ...report,
      otelOn: { ...report.gateway, cpu: 1100, p99: 20 },
      streams: {
        streams: 200,
        chunks: 100,
        intervalMs: 20,
        rounds: 3,
        direct: { ...stream(0, 8, 0), proxyCpu: null, peakRss: null, rssPerStream: null },
        bare: stream(40, 8, 30),
        scan: stream(48, 10, 40),
        strip: stream(52, 13, 50),
        imageScan: stream(44, 9, 60),
        idle: { start: idle, afterWarmup: idle },
      },
    });
    expect(text).toContain(
      "| streams: CPU per event (proxy + its Redis), scan | ≤ 1.25× | 1.20× | met | 1.10× | met |",
    );
    expect(text).toContain(
      "| streams: CPU per event (proxy + its Redis), strip | ≤ 1.25× | 1.30× | not met | — |  |",
    );
    expect(text).toContain("| streams: event delay p99, scan | ≤ 1.5× | 1.25× | met | 1.13× | met |");
    expect(text).toContain(
      "| idle RSS after warm-up | ≤ bare + 40 MiB | +35 MiB | met | +45 MiB | not met |",
      // The README way counts its launcher's private memory (80 + 5 − 50); the image way has none.
    );
    expect(text).toContain(
      "| RSS per open stream, scan | ≤ 1.5× | 40 against 30 KiB | met | 60 against 30 KiB | not met |",
    );
    expect(text).toContain(
      "| OpenTelemetry 100 % sampled against off: CPU per request | ≤ +15 % | +5.1 % | met | — |  |",
    );
    expect(text).toContain(
      "| OpenTelemetry 100 % sampled against off: p99 @ 500/s | ≤ 1.5× | 1.62× | not met | — |  |",
    );
    expect(text).toContain(
      "relaunched the serving one with the image's V8 flags, holding 5 MiB of its own (private pages; the rest of its resident set is shared)",
    );
  });

  it("shows how soon the other replica stopped admitting a changed key, against the bound", () => {
    const invalidation = {
      trials: 20,
      admittedAfter: 1,
      mostAdmittedAfter: 1,
      windowP50: 0,
      windowMax: 0.42,
      refusedP50: 0.61,
      refusedMax: 1.9,
    };
    const text = renderFigures({ ...report, invalidation });
    expect(text).toContain(
      "| last request admitted, after the change's reply (median, worst of 20) | ≤ 50 ms, never > 100 ms | 0.00 ms, 0.42 ms | met |",
    );
    expect(text).toContain(
      "| first refusal, after the change's reply (median, worst) | | 0.61 ms, 1.90 ms | |",
    );
    expect(text).toContain(
      "| requests sent after the reply and still admitted (all trials, most in one) | | 1, 1 | |",
    );
    expect(renderFigures({ ...report, invalidation: { ...invalidation, windowMax: 51 } })).toContain(
      "0.00 ms, 51.00 ms | not met |",
    );
    expect(renderFigures(report)).not.toContain("other replica");
  });

  it("gives the command that repeats a run, with only the settings that differ from the defaults", () => {
    const defaults = { rounds: 4, seconds: 5 };
    expect(benchCommand(4, 5, defaults)).toBe("npm run bench");
    expect(benchCommand(1, 2, defaults)).toBe("BENCH_ROUNDS=1 BENCH_SECONDS=2 npm run bench");
  });
});

describe("writing the figures into the page", () => {
  it("replaces what lies between the markers and keeps the rest", () => {
    const once = replaceGenerated(page("old figures"), "new figures");
    expect(once).toBe(page("new figures"));
    expect(replaceGenerated(once, "new figures")).toBe(once);
  });

  it("refuses a page without exactly one pair of markers", () => {
    expect(() => replaceGenerated("# Benchmarks\n", "x")).toThrow(/exactly one/);
    expect(() => replaceGenerated(`${page("a")}${page("b")}`, "x")).toThrow(/exactly one/);
    expect(() => replaceGenerated(`${GENERATED_END}\n${GENERATED_START}\n`, "x")).toThrow(/exactly one/);
  });

  it("replaces another pair of markers' part alone when given them (the profile's)", () => {
    const [start, end] = PROFILE_MARKERS;
    const both = `${page("figures")}${start}\nold split\n${end}\n`;
    expect(replaceGenerated(both, "new split", PROFILE_MARKERS)).toBe(
      `${page("figures")}${start}\nnew split\n${end}\n`,
    );
    expect(() => replaceGenerated(page("figures"), "x", PROFILE_MARKERS)).toThrow(/exactly one/);
  });

  it("finds its markers in docs/benchmarks.md, around the figures of a run", () => {
    const text = readFileSync(PAGE, "utf8");
    expect(() => replaceGenerated(text, "")).not.toThrow();
    const generated = text.slice(
      text.indexOf(GENERATED_START) + GENERATED_START.length,
      text.indexOf(GENERATED_END),
    );
    expect(generated.trim()).toMatch(/^Run on \d{4}-\d{2}-\d{2} /);
    expect(() => replaceGenerated(text, "", PROFILE_MARKERS)).not.toThrow();
  });
});

describe("the profile report", () => {
  const figures = (
    owners: Record<string, number>,
    files: Record<string, number> = {},
    parts: Record<string, number> = {},
  ) => ({
    owners: new Map(Object.entries(owners)),
    files: new Map(Object.entries(files)),
    parts: new Map(Object.entries(parts)),
    main: Object.values(owners).reduce((a, b) => a + b, 0),
    process: 2 * Object.values(owners).reduce((a, b) => a + b, 0),
    allocatedKiB: 40,
  });
  const files = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`proxy/f${i}.js`, 30 - i]));
  const text = renderProfile({
    date: "2026-11-26T08:20:00Z",
    commit: "0123456789ab",
    rounds: 2,
    seconds: 8,
    rate: 500,
    machine: report.machine,
    bare: figures({ node: 450, gateway: 20, "http-proxy-3": 70, debug: 0.4 }),
    gateway: {
      ...figures({ node: 600, gateway: 180, "http-proxy-3": 60, pino: 30, denque: 0.5 }, files, {
        "stage admit": 12,
        "proxy/relay": 40,
      }),
      allocatedKiB: 74,
    },
  });

  it("lists owners by the gateway's cost, sums the ones under 1 µs, and signs the differences", () => {
    const rows = text.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| ---"));
    expect(rows.slice(1, 5)).toEqual([
      "| node | 450 µs | 600 µs | +150 µs |",
      "| its own code (the bare proxy's script, the gateway's src/) | 20 µs | 180 µs | +160 µs |",
      "| http-proxy-3 | 70 µs | 60 µs | −10 µs |",
      "| pino | 0 µs | 30 µs | +30 µs |",
    ]);
    expect(text).toContain("| others (debug, denque) | 0 µs | 1 µs | +0 µs |");
    expect(text).toContain("| main thread (from /proc) | 540 µs | 871 µs | +330 µs |");
    expect(text).toContain(
      "| memory allocated per request (sampled, garbage included) | 40 KiB | 74 KiB | +34 KiB |",
    );
  });

  it("lists the twelve most expensive files of the gateway's code, and says when and how it was run", () => {
    expect(text).toMatch(
      /^Run on 2026-11-26 at 08:20 UTC, code at commit `0123456789ab`, with `npm run bench:profile`: 2 rounds of 8 s at 500 requests\/s per process/,
    );
    expect(text).toContain("| `proxy/f0.js` | 30 µs |");
    expect(text).toContain("| `proxy/f11.js` | 19 µs |");
    expect(text).not.toContain("proxy/f12.js");
  });

  it("lists the gateway's own code by pipeline stage or part, the most expensive first, with their sum", () => {
    const rows = text.split("\n");
    const relay = rows.indexOf("| proxy/relay | 40 µs |");
    expect(relay).toBeGreaterThan(0);
    expect(rows[relay + 1]).toBe("| stage admit | 12 µs |");
    expect(rows[relay + 2]).toBe("| all of the gateway's own code | 52 µs |");
  });
});
