// Starts a throwaway redis-server on a free loopback port with persistence off, for the demo, the
// benchmark and the test suite. It never touches a Redis it did not start.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  process: ChildProcess;
  /** Stops the server; its data directory is removed unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ["--appendonly", "yes"]. */
  args?: string[];
  /** Port to bind (a free one by default). */
  port?: number;
  /** Data directory (a new temporary one by default), to restart a server on its own data. */
  dir?: string;
}

export function assertRedisServerInstalled(): void {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error(
      "redis-server is not installed; the tests, the demo and the benchmark start a real Redis of their own. Install it with `sudo apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS).",
    );
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  assertRedisServerInstalled();
  // A port found free can be taken before redis binds it; try a few times.
  for (let attempt = 0; ; attempt++) {
    const port = options.port ?? (await freePort());
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "tunnel-redis-"));
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        ...(options.args ?? []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const ready = await new Promise<boolean>((resolve) => {
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) resolve(true);
      });
      child.once("exit", () => resolve(false));
    });
    if (ready) {
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        dir,
        process: child,
        async stop(stopOptions = {}) {
          // A server killed by a signal (a test's SIGKILL) has exited already: there is nothing to wait for.
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGTERM");
            await once(child, "exit");
          }
          if (!stopOptions.keepData) rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
    if (attempt >= 4 || options.port !== undefined) throw new Error("redis-server did not start");
  }
}
