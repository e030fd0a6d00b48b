// Loaded with --import into a process the profile benchmark measures (bench/profile.ts): the first SIGUSR2
// starts a profiler, the second stops it and writes {kind, profile} to $BENCH_PROFILE_OUT. The kind is read
// from $BENCH_PROFILE_CONTROL at the start: "cpu" (V8's sampling CPU profiler) or "heap" (its sampling heap
// profiler, counting garbage too). Only the measured load is profiled, not the start-up or the warm-up. Plain
// JavaScript, so that the gateway runs from its build exactly as in production.

import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
let kind = null;

async function start() {
  kind = readFileSync(process.env.BENCH_PROFILE_CONTROL, "utf8").trim();
  if (kind === "heap") {
    await post("HeapProfiler.enable");
    await post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 500 });
  // The idle notifier marks the event loop's waits as "(idle)", as --cpu-prof does; without it they are
  // counted for whatever ran last.
  process._startProfilerIdleNotifier();
  await post("Profiler.start");
}

async function stop() {
  const { profile } = await post(kind === "heap" ? "HeapProfiler.stopSampling" : "Profiler.stop");
  if (kind !== "heap") process._stopProfilerIdleNotifier();
  writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify({ kind, profile }));
  kind = null;
}

process.on("SIGUSR2", () => {
  (kind === null ? start() : stop()).catch((error) =>
    process.stderr.write(`profiler hook: ${error.message}\n`),
  );
});
