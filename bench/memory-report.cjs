// Preloaded (node --require) into a process whose resident set `bench/resident-set.ts` explains: on SIGUSR2 it
// writes <BENCH_MEMORY_REPORT>/memory-<pid>.json with what V8 and the kernel say the memory is — the heap by
// space, code and its metadata, external and array buffers, and /proc/self/smaps_rollup's split of the resident
// set into anonymous memory (the heaps, malloc) and file-backed pages (the node binary, shared libraries).
// CommonJS, so that --require takes it in front of an ES module entry.
"use strict";
const { readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const v8 = require("node:v8");

process.on("SIGUSR2", () => {
  const rollup = {};
  for (const line of readFileSync("/proc/self/smaps_rollup", "utf8").split("\n")) {
    const match = /^(\w+):\s+(\d+) kB/.exec(line);
    if (match) rollup[match[1]] = Number(match[2]) * 1024;
  }
  const report = {
    memoryUsage: process.memoryUsage(),
    spaces: v8.getHeapSpaceStatistics(),
    code: v8.getHeapCodeStatistics(),
    heap: v8.getHeapStatistics(),
    rollup,
  };
  writeFileSync(join(process.env.BENCH_MEMORY_REPORT, `memory-${process.pid}.json`), JSON.stringify(report));
});
