// Runs the built gateway (`node dist/cli.js serve`) as a separate process, for what an in-process gateway
// cannot show: several replicas sharing one Redis, and signals.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { freePort } from "../../src/demo/redis-server.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");

export interface GatewayProcess {
  url: string;
  metricsUrl: string;
  child: ChildProcess;
  /** Parsed JSON log lines written so far. */
  logs: Record<string, any>[];
  stderr: () => string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function spawnGateway(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tunnel-gw-"));
  const file = join(dir, "config.yaml");
  writeFileSync(
    file,
    stringify({
      ...config,
      listen: { host: "127.0.0.1", port },
      metrics: { port: metricsPort, ...(config.metrics as object) },
    }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--config", file], {
    env: { ...process.env, TUNNEL_CONFIG: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Record<string, any>[] = [];
  let pending = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) logs.push(JSON.parse(line));
  });
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close" rather than "exit": it comes after the last log line has been read from the pipe.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const ready = await fetch(`${url}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || attempt > 200) throw new Error(`gateway did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    child,
    logs,
    stderr: () => stderr,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
