import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";

function capture() {
  const lines: Record<string, any>[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** An error as ioredis makes it for a failed command: the command's name and every argument attached. */
function commandError(message: string, args: string[]): Error {
  return Object.assign(new Error(message), { command: { name: "evalsha", args } });
}

describe("the logger's error serializer", () => {
  it("keeps a failed Redis command's name but never its arguments, also in nested errors", () => {
    const { logger, lines } = capture();
    const error = commandError("WRONGTYPE Operation against a key", [
      "sha",
      "7",
      '{"request_body":"secret"}',
    ]);
    const wrapper = Object.assign(new Error("settle failed"), {
      lastNodeError: commandError("MOVED", ["secret too"]),
    });
    logger.error({ err: error }, "one");
    logger.error({ err: wrapper }, "two");

    expect(lines[0]?.err).toMatchObject({ type: "Error", message: "WRONGTYPE Operation against a key" });
    expect(lines[0]?.err.command).toBe("evalsha");
    expect(lines[1]?.err.lastNodeError.command).toBe("evalsha");
    expect(JSON.stringify(lines)).not.toContain("secret");
    // The error itself is left as it was.
    expect(error).toMatchObject({ command: { args: ["sha", "7", '{"request_body":"secret"}'] } });
  });

  it("leaves other errors and non-error values as pino writes them", () => {
    const { logger, lines } = capture();
    logger.error({ err: Object.assign(new Error("boom"), { code: "ECONNREFUSED" }) }, "x");
    logger.error({ err: "plain text" }, "y");
    expect(lines[0]?.err).toMatchObject({ type: "Error", message: "boom", code: "ECONNREFUSED" });
    expect(lines[0]?.err.stack).toMatch(/^Error: boom/);
    expect(lines[1]?.err).toBe("plain text");
  });
});
