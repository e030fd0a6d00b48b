// Passed to node with --import: registers hooks.mjs, which names on stderr every module the process imports
// that matches $MODULE_LOG_PATTERN, @opentelemetry by default (test/observability/telemetry-off.test.ts and
// test/gateway-modules.test.ts read it).

import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
