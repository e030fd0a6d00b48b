// Loaded with --import into a process the profile benchmark measures (bench/profile.ts): the first SIGUSR2
// starts V8's CPU profiler, the second stops it and writes the profile to $BENCH_PROFILE_OUT. Only the
// measured load is profiled, not the start-up or the warm-up. Plain JavaScript, so that the gateway runs
// from its build exactly as in production.

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
let running = false;

process.on("SIGUSR2", () => {
  running = !running;
  // The idle notifier marks the event loop's waits as "(idle)", as --cpu-prof does; without it they are
  // counted for whatever ran last.
  const step = running
    ? post("Profiler.enable")
        .then(() => post("Profiler.setSamplingInterval", { interval: 500 }))
        .then(() => {
          process._startProfilerIdleNotifier();
          return post("Profiler.start");
        })
    : post("Profiler.stop").then(({ profile }) => {
        process._stopProfilerIdleNotifier();
        writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
      });
  step.catch((error) => process.stderr.write(`profiler hook: ${error.message}\n`));
});
