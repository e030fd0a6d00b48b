// The suite's own temporary directory. Global setup points TMPDIR at a fresh `tunnel-test-XXXXXX` under the
// system's before any test runs, so that what the tests create — directly, or through the redis-servers,
// gateways, openssl and Chromium they start, which inherit the variable — lands there and nowhere else.
// Teardown removes it, and fails the run when a test left anything in it: each test must remove what it
// creates, pass or fail. Only this directory is inspected, never the shared /tmp, where other suites may be
// creating and removing directories with the same prefixes at the same time.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SuiteTmpdir {
  path: string;
  /** Removes the directory, restores TMPDIR, and throws naming what the tests left behind, if anything. */
  finish(): void;
}

export function useSuiteTmpdir(): SuiteTmpdir {
  const path = mkdtempSync(join(tmpdir(), "tunnel-test-"));
  const previous = process.env.TMPDIR;
  // Read by os.tmpdir() on every call, and inherited by the test workers, which start after global setup.
  process.env.TMPDIR = path;
  return {
    path,
    finish() {
      const left = readdirSync(path).sort();
      rmSync(path, { recursive: true, force: true });
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      if (left.length > 0) {
        throw new Error(
          `the tests left ${left.length} entries in their temporary directory ${path} (now removed): ` +
            `${left.join(", ")}. A test must remove what it creates, including when it fails.`,
        );
      }
    },
  };
}
