// The gateway started the ways its users start it, for `npm run bench` and `npm run bench:ab`:
//   readme — as the README's quick start does: `node dist/cli.js serve --upstream … --port …`, the Redis named
//            by TUNNEL_REDIS_URL, no configuration file, no Node flags, the log lines going to a file;
//   image  — as the container image and the Helm chart do: the same command with the image's environment
//            (NODE_ENV=production, NODE_OPTIONS from the Dockerfile), the log lines going to a pipe that
//            another process drains into a file, as a container runtime does.
// Metrics are on in both (the default); each gets a metrics port of its own only because several gateways
// share the machine. Everything else is the defaults.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../src/demo/redis-server.js";
import { children, waitReady } from "./servers.js";

export type StartedAs = "readme" | "image";

/** The image's environment (Dockerfile, ENV): the chart adds nothing to it. */
export const IMAGE_ENV = { NODE_ENV: "production", NODE_OPTIONS: "--max-semi-space-size=64" };

/** A process whose CPU and memory the benchmark reads from /proc. */
export interface Proc {
  pid?: number | undefined;
}

export interface UserGateway {
  /** The process started (`node dist/cli.js serve`). */
  started: ChildProcess;
  /**
   * The process that serves: the one started, or its child when the CLI relaunched itself with the image's
   * V8 flags (docs/deploying.md); the started process then only waits for it.
   */
  serving: Proc;
  /** Every process of the gateway: CPU is counted over all of them. */
  processes: Proc[];
  /** Where the log lines went. */
  logFile: string;
}

export interface UserGatewayOptions {
  startedAs: StartedAs;
  port: number;
  redisUrl: string;
  upstream: string;
  /** The build to run (another checkout's, for an A/B run); this checkout's dist/cli.js by default. */
  cli?: string;
  /** More environment (OTEL_*), over the way's own. */
  env?: Record<string, string>;
}

/** The children of a process, from /proc (empty when it has none, or has exited). */
function childrenOf(pid: number): number[] {
  try {
    const list = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return list === "" ? [] : list.split(" ").map(Number);
  } catch {
    return [];
  }
}

export async function startAsUsersDo(options: UserGatewayOptions): Promise<UserGateway> {
  const logFile = join(mkdtempSync(join(tmpdir(), "tunnel-bench-log-")), "gateway.log");
  const log = openSync(logFile, "a");
  // The drain: a process that reads the gateway's stdout from a pipe and writes it to a file.
  const drain = options.startedAs === "image" ? spawn("cat", [], { stdio: ["pipe", log, "inherit"] }) : null;
  if (drain) children.push(drain);
  // Neither way inherits the benchmark's own Node settings: the README's has none, the image's its own.
  const { NODE_OPTIONS: _options, NODE_ENV: _env, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    TUNNEL_CONFIG: "",
    TUNNEL_REDIS_URL: options.redisUrl,
    TUNNEL_METRICS_PORT: String(await freePort()),
    ...(options.startedAs === "image" ? IMAGE_ENV : {}),
    ...options.env,
  };
  const cli = options.cli ?? join(import.meta.dirname, "../dist/cli.js");
  const started = spawn(
    process.execPath,
    [cli, "serve", "--upstream", options.upstream, "--port", String(options.port), "--host", "127.0.0.1"],
    { stdio: ["ignore", drain?.stdin ?? log, "inherit"], env },
  );
  children.push(started);
  await waitReady(`http://127.0.0.1:${options.port}`);
  const relaunched = childrenOf(started.pid as number)[0];
  const serving: Proc = relaunched === undefined ? started : { pid: relaunched };
  return {
    started,
    serving,
    processes: relaunched === undefined ? [started] : [started, serving],
    logFile,
  };
}
