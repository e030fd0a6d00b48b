// A module resolution hook (node:module register) that writes "imports <url>" on stderr for every module of an
// @opentelemetry package the process imports. It runs on the loader's thread, hence the direct write to fd 2.

import { writeSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.includes("/@opentelemetry/")) writeSync(2, `imports ${resolved.url}\n`);
  return resolved;
}
