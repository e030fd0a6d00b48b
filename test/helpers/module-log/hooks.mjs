// A module resolution hook (node:module register) that writes "imports <url>" on stderr for every module the
// process imports whose URL matches $MODULE_LOG_PATTERN (a regular expression; by default, any module of an
// @opentelemetry package). It runs on the loader's thread, hence the direct write to fd 2. An import of a
// worker thread is written "worker <thread id> imports <url>", so that the main thread's stay apart.

import { writeSync } from "node:fs";

const pattern = new RegExp(process.env.MODULE_LOG_PATTERN || "/@opentelemetry/");
let prefix = "";

/** Given the id of the thread that registered the hook (register.mjs): 0 for the main thread. */
export function initialize(data) {
  if (data?.threadId) prefix = `worker ${data.threadId} `;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (pattern.test(resolved.url)) writeSync(2, `${prefix}imports ${resolved.url}\n`);
  return resolved;
}
