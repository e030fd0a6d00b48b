// Passed to node with --import: registers hooks.mjs, which names on stderr every module the process imports
// that matches $MODULE_LOG_PATTERN, @opentelemetry by default (test/observability/telemetry-off.test.ts and
// test/gateway-modules.test.ts read it). A worker thread runs this too, and its imports are named as its own.

import { register } from "node:module";
import { threadId } from "node:worker_threads";

register("./hooks.mjs", import.meta.url, { data: { threadId } });
