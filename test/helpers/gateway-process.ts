// Runs the built gateway (`node dist/cli.js serve`) as a separate process, for what an in-process gateway
// cannot show: several replicas sharing one Redis, signals, and how the process itself starts and exits.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { SERVE_V8_FLAGS } from "../../src/cli/v8-tuning.js";
import { waitUntil } from "./wait.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");
/** The message of the line runGateway logs once its listeners are bound, with their URLs. */
const LISTENING = "tunnel-gateway listening";

/** A `serve` process, from the moment it was spawned. */
export interface ServeProcess {
  child: ChildProcess;
  /** The configuration file it was given. */
  file: string;
  /** Parsed JSON log lines written so far. */
  logs: Record<string, any>[];
  stderr: () => string;
  /** Resolves with the exit code once the process has exited and its output is read. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface GatewayProcess extends ServeProcess {
  url: string;
  /** Base URL of the metrics listener, or null with metrics.enabled off. */
  metricsUrl: string | null;
}

/**
 * Spawns `serve` with `config` written to a file of its own (removed when the process exits), the public and
 * metrics listeners on ports the system picks unless `config` or `args` say otherwise. Returns at once.
 */
export function spawnServe(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
  args: string[] = [],
): ServeProcess {
  const dir = mkdtempSync(join(tmpdir(), "tunnel-gw-"));
  const file = join(dir, "config.yaml");
  writeFileSync(
    file,
    stringify({
      ...config,
      listen: { host: "127.0.0.1", port: 0, ...(config.listen as object) },
      metrics: { port: 0, ...(config.metrics as object) },
      logging: { level: "info", ...(config.logging as object) },
      // The suite's redis-servers persist nothing: they are thrown away with the run.
      redis: { allowNoPersistence: true, ...(config.redis as object) },
    }),
  );
  // Started as the image starts it, with the V8 tuning in NODE_OPTIONS: the process spawned is then the
  // serving process itself, not a launcher that relaunches it (cli/v8-tuning.ts), so that a SIGKILL is a
  // crash of the gateway. The relaunch's own tests give NODE_OPTIONS: "".
  const tuned = [process.env.NODE_OPTIONS ?? "", ...SERVE_V8_FLAGS].join(" ").trim();
  const child = spawn(process.execPath, [CLI, "serve", "--config", file, ...args], {
    env: { ...process.env, TUNNEL_CONFIG: "", NODE_OPTIONS: tuned, ...env },
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
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return {
    child,
    file,
    logs,
    stderr: () => stderr,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Starts the gateway with its listeners on ports the system picks (port 0), so that no port found free
 * beforehand can be taken by someone else in between; their URLs come from the start-up log line, which is
 * why the log level is info unless `config` or `env` says otherwise. Returns once /readyz answers 200; if it
 * does not, the process is killed. Its configuration file is removed when the process has exited.
 */
export async function spawnGateway(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const serve = spawnServe(config, env);
  const { child, logs, stderr, exited } = serve;
  const running = () => {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${stderr()}`);
  };

  let listening: Record<string, any> | undefined;
  try {
    await waitUntil(() => {
      running();
      listening = logs.find((line) => line.msg === LISTENING);
      return listening !== undefined;
    }, `the gateway's "${LISTENING}" log line`);
    const { url } = listening as { url: string };
    // The gateway connects to Redis in the background and answers 503 until it has.
    await waitUntil(async () => {
      running();
      return fetch(`${url}/readyz`).then(
        (res) => res.text().then(() => res.status === 200),
        () => false,
      );
    }, "the gateway to be ready");
    // Log lines leave in batches (at the latest LOG_FLUSH_MS after they are written): the ones written as it
    // became ready, which tests read, may still be on their way.
    await waitUntil(() => {
      running();
      return logs.some((line) => typeof line.msg === "string" && line.msg.startsWith("Redis checked"));
    }, 'the gateway\'s "Redis checked" log line');
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  const { url, metrics } = listening as { url: string; metrics: string | null };
  return { ...serve, url, metricsUrl: metrics === null ? null : metrics.replace(/\/metrics$/, "") };
}
