import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, LOG_BATCH_BYTES } from "../../src/observability/logger.js";

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

/**
 * Runs `script` in a Node process with the built logger as `logger` (the gateway's own stdout destination),
 * and collects the lines it writes; `onLine` sees each as it arrives.
 */
function loggingProcess(
  script: string,
  stderr: "inherit" | "pipe" = "inherit",
  onLine: (line: Record<string, any>) => void = () => {},
) {
  const logger = join(import.meta.dirname, "../../dist/observability/logger.js");
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { createLogger } = await import(${JSON.stringify(logger)});
const logger = createLogger("info");
${script}`,
    ],
    { stdio: ["ignore", "pipe", stderr] },
  );
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const lines: Record<string, any>[] = [];
  let pending = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split("\n");
    pending = complete.pop() ?? "";
    for (const text of complete) {
      const line = JSON.parse(text);
      lines.push(line);
      onLine(line);
    }
  });
  return { child, lines, stderr: () => errors, exited: once(child, "close") };
}

describe("the logger's stdout destination", () => {
  it("gathers a busy process's lines into writes of a batch's size, and writes all of them", async () => {
    // 40 lines of ~300 bytes logged at once. Without batching, the first line goes out on its own at once
    // (and the rest while it is in flight); with it, nothing is written before LOG_BATCH_BYTES have
    // gathered. The child records the size of each write the destination makes to stdout, and reports
    // them on stderr as it exits (by itself, once its writes are done).
    const run = loggingProcess(
      `const fs = (await import("node:fs")).default;
      const write = fs.write;
      const sizes = [];
      fs.write = function (fd, data, ...rest) {
        if (fd === 1) sizes.push(Buffer.byteLength(data));
        return write.call(this, fd, data, ...rest);
      };
      process.on("exit", () => fs.writeSync(2, JSON.stringify(sizes)));
      for (let i = 0; i < 40; i++) logger.info({ i, pad: "x".repeat(200) }, "line");`,
      "pipe",
    );
    const [code] = await run.exited;
    expect(code).toBe(0);
    // (In the order logged, except that pino's exit flush may overtake a write still in flight.)
    expect(run.lines.map((line) => line.i).sort((a, b) => a - b)).toEqual([...Array(40).keys()]);
    const sizes: number[] = JSON.parse(run.stderr());
    expect(sizes[0]).toBeGreaterThanOrEqual(LOG_BATCH_BYTES);
  });

  it("still writes a quiet process's line while it runs, without waiting for a batch to fill", async () => {
    let seen: (line: Record<string, any>) => void = () => {};
    const line = new Promise<Record<string, any>>((resolve) => (seen = resolve));
    const run = loggingProcess(`logger.info("alone"); setInterval(() => {}, 1000);`, "inherit", seen);
    expect(await line).toMatchObject({ msg: "alone" });
    expect(run.child.exitCode).toBeNull();
    run.child.kill();
    await run.exited;
  });

  it("writes what is still buffered when the process ends by itself, a batch not yet full included", async () => {
    // 20 lines of ~275 bytes: one batch handed over as the 15th is written, 5 still gathering at the end.
    const run = loggingProcess(
      `for (let i = 0; i < 20; i++) logger.info({ i, pad: "x".repeat(200) }, "line");`,
    );
    const [code] = await run.exited;
    expect(code).toBe(0);
    expect(run.lines.map((line) => line.i).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
  });

  it("writes what is still buffered when the process exits", async () => {
    const run = loggingProcess(`logger.info("first"); logger.info("second"); process.exit(3);`);
    const [code] = await run.exited;
    expect(code).toBe(3);
    expect(run.lines.map((line) => line.msg)).toEqual(["first", "second"]);
  });
});
