// Temporary directories for a test file, all removed once its tests are done, whether they passed or not
// (global teardown fails the run on anything left in the suite's TMPDIR: see suite-tmpdir.ts).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * Returns a function that makes a new directory named `<prefix>XXXXXX` in the temporary directory. Call it
 * at the top level of a test file or in a describe block, where it can register the hook that removes them.
 */
export function temporaryDirectories(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
