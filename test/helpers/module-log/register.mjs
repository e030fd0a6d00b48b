// Passed to node with --import: registers hooks.mjs, which names on stderr every @opentelemetry module the
// process imports (test/observability/telemetry-off.test.ts reads it).

import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
