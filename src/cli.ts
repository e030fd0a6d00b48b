#!/usr/bin/env node
// The `tunnel-gateway` command. `serve` first gets the V8 tuning the image gives it (cli/v8-tuning.ts): when
// it lacks it, this process only starts the serving one with it and waits; otherwise the program runs here.
// Loaded lazily, so that a process that only waits holds none of the program's modules.

import { missingServeFlags, relaunchWith, watchLauncher } from "./cli/v8-tuning.js";

const flags = missingServeFlags(process.argv, process.env, process.execArgv);
if (flags.length > 0) relaunchWith(flags);
else {
  watchLauncher(process.env);
  await import("./cli/program.js");
}
