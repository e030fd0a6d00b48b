// Preloaded (node --require) into the benchmark's servers when BENCH_GC_LOG names a directory: every garbage
// collection of the process, as the wall-clock moment it began (ms since the epoch), its pause in ms and its
// kind, one line each in <dir>/gc-<pid>.txt. The streams scenario matches its slowest events against these
// pauses (bench/streams.ts). CommonJS, so that --require takes it in front of an ES module entry.
"use strict";
const { appendFileSync, mkdirSync } = require("node:fs");
const { join } = require("node:path");
const { PerformanceObserver, performance, constants } = require("node:perf_hooks");

mkdirSync(process.env.BENCH_GC_LOG, { recursive: true });
const file = join(process.env.BENCH_GC_LOG, `gc-${process.pid}.txt`);
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "scavenge",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "mark-compact",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental marking",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};
new PerformanceObserver((list) => {
  let lines = "";
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
    lines += `${(performance.timeOrigin + entry.startTime).toFixed(3)} ${entry.duration.toFixed(3)} ${kind}\n`;
  }
  appendFileSync(file, lines);
}).observe({ entryTypes: ["gc"] });
