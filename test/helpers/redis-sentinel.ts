// A real Redis Sentinel on loopback monitoring one master as "mymaster", for the tests that connect through
// it and the failover tests.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../src/demo/redis-server.js";
import { waitUntil } from "./wait.js";

export interface Sentinel {
  process: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export interface SentinelOptions {
  /** The master's password (sentinel auth-pass). */
  masterPassword?: string;
  /** sentinel down-after-milliseconds (5000): how long the master must be unreachable before a failover. */
  downAfterMs?: number;
}

/**
 * Starts a sentinel monitoring `masterPort` (quorum 1) on a port found free, in a directory from `directory`
 * (a sentinel rewrites its configuration file). Redis cannot be told to pick a port itself (port 0 turns TCP
 * off), and a port found free can be taken before the sentinel binds it: then it exits, and another port is
 * tried.
 */
export async function startSentinel(
  masterPort: number,
  directory: () => string,
  options: SentinelOptions = {},
): Promise<Sentinel> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = directory();
    const file = join(dir, "sentinel.conf");
    writeFileSync(
      file,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
        ...(options.masterPassword ? [`sentinel auth-pass mymaster ${options.masterPassword}`] : []),
        `sentinel down-after-milliseconds mymaster ${options.downAfterMs ?? 5000}`,
        "sentinel failover-timeout mymaster 10000",
        "",
      ].join("\n"),
    );
    const child = spawn("redis-server", [file, "--sentinel"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil(
      () => output.includes("+monitor master mymaster") || child.exitCode !== null,
      "the sentinel to monitor the master",
      20_000,
    );
    if (child.exitCode === null) {
      return {
        process: child,
        port,
        async stop() {
          if (child.exitCode === null) {
            child.kill("SIGTERM");
            await once(child, "exit");
          }
        },
      };
    }
    if (attempt === 5) throw new Error(`the sentinel did not start: ${output}`);
  }
}
