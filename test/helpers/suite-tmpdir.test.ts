import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { useSuiteTmpdir } from "./suite-tmpdir.js";

describe("the suite's temporary directory", () => {
  it("is where this test runs: global setup pointed TMPDIR at it before the workers started", () => {
    expect(basename(tmpdir())).toMatch(/^tunnel-test-/);
    expect(process.env.TMPDIR).toBe(tmpdir());
  });

  it("is removed at the end, and TMPDIR restored, without complaint when the tests left it empty", () => {
    const before = process.env.TMPDIR;
    const tmp = useSuiteTmpdir();
    try {
      expect(dirname(tmp.path)).toBe(before);
      expect(process.env.TMPDIR).toBe(tmp.path);
      expect(tmpdir()).toBe(tmp.path);
    } finally {
      tmp.finish();
    }
    expect(existsSync(tmp.path)).toBe(false);
    expect(process.env.TMPDIR).toBe(before);
  });

  it("fails naming what a test left behind, and removes it all the same", () => {
    const tmp = useSuiteTmpdir();
    mkdirSync(join(tmp.path, "tunnel-config-abc123"));
    writeFileSync(join(tmp.path, "tunnel-config-abc123", "config.yaml"), "{}");
    writeFileSync(join(tmp.path, "stray.txt"), "");
    expect(() => tmp.finish()).toThrow(
      /left 2 entries .*: stray\.txt, tunnel-config-abc123\. A test must remove/,
    );
    expect(existsSync(tmp.path)).toBe(false);
  });
});
