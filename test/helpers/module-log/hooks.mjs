// A module resolution hook (node:module register) that writes "imports <url>" on stderr for every module the
// process imports whose URL matches $MODULE_LOG_PATTERN (a regular expression; by default, any module of an
// @opentelemetry package). It runs on the loader's thread, hence the direct write to fd 2.

import { writeSync } from "node:fs";

const pattern = new RegExp(process.env.MODULE_LOG_PATTERN || "/@opentelemetry/");

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (pattern.test(resolved.url)) writeSync(2, `imports ${resolved.url}\n`);
  return resolved;
}
