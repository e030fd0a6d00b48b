// Script errors made loud: each counted, each kind logged at error level when it first happens and then at
// most once a minute with how often it repeated — on a clock the test moves.

import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { SCRIPT_ERROR_LOG_INTERVAL_MS, ScriptErrors } from "../../src/observability/script-errors.js";

function reporter() {
  const lines: Record<string, unknown>[] = [];
  const counted: string[] = [];
  let now = 1000;
  const errors = new ScriptErrors(
    createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) }),
    { scriptError: (script) => counted.push(script) },
    () => now,
  );
  return { errors, lines, counted, advance: (ms: number) => (now += ms) };
}

const nilArithmetic = (line: number) =>
  Object.assign(
    new Error(
      `ERR user_script:${line}: attempt to perform arithmetic on local 'free' (a nil value) script: 2e44ea58, on @user_script:${line}.`,
    ),
    { name: "ReplyError" },
  );

describe("ScriptErrors", () => {
  it("counts every failure, logs a kind at error level once, then once a minute with how often it repeated", () => {
    const r = reporter();
    for (let i = 0; i < 5; i++) r.errors.report("lease", nilArithmetic(324));
    expect(r.counted).toEqual(["lease", "lease", "lease", "lease", "lease"]);
    expect(r.lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "a Redis script failed",
        script: "lease",
        err: expect.stringContaining("attempt to perform arithmetic on local 'free'"),
      }),
    ]);
    r.advance(SCRIPT_ERROR_LOG_INTERVAL_MS - 1);
    r.errors.report("lease", nilArithmetic(324));
    expect(r.lines).toHaveLength(1);
    r.advance(1);
    r.errors.report("lease", nilArithmetic(324));
    expect(r.lines).toHaveLength(2);
    expect(r.lines[1]).toMatchObject({ level: 50, script: "lease", repeated: 5 });
  });

  it("tells kinds apart by script and message, but not by the numbers in the message", () => {
    const r = reporter();
    r.errors.report("lease", nilArithmetic(324));
    r.errors.report("lease", nilArithmetic(325));
    r.errors.report("settle", nilArithmetic(324));
    r.errors.report(
      "settle",
      Object.assign(new Error("WRONGTYPE Operation against a key"), { name: "ReplyError" }),
    );
    expect(r.lines.map((line) => [line.script, line.err])).toEqual([
      ["lease", expect.stringContaining(":324:")],
      ["settle", expect.stringContaining(":324:")],
      ["settle", "WRONGTYPE Operation against a key"],
    ]);
    expect(r.counted).toHaveLength(4);
  });
});
