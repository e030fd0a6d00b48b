// The processes a benchmark measures, started as production runs them: the demo model server and the bare
// proxy as forked Node processes, the gateway from its build with the container image's Node flags, each
// with its own configuration; and the account and keys the gateway is measured with. Shared by `npm run
// bench` (run.ts) and `npm run bench:profile` (profile.ts).

import { type ChildProcess, execFileSync, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { stringify } from "yaml";
import { AccountService } from "../src/services/accounts.js";
import { KeyService } from "../src/services/keys.js";
import type { Actor } from "../src/store/audit/audit-store.js";
import { closeRedis, connectRedis, createRedis } from "../src/store/connection/redis.js";
import { openStores } from "../src/store/stores.js";

/** The Node flags of the gateway's container image (see Dockerfile), given to gateways started from a file. */
const IMAGE_NODE_OPTIONS = "--max-semi-space-size=64";
const here = import.meta.dirname;
/** With BENCH_GC_LOG=<dir>, every server logs its garbage collections there (bench/gc-log.cjs). */
const GC_LOG = process.env.BENCH_GC_LOG ? ` --require ${join(here, "gc-log.cjs")}` : "";
const NODE_OPTIONS = `${IMAGE_NODE_OPTIONS}${GC_LOG}`;

export const children: ChildProcess[] = [];
// A run that fails half-way must not leave its servers behind (they would hold the caller's terminal open).
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Forks one of the benchmark's own servers (bench/<script>) with Node's defaults; it says "ready" when it listens. */
export async function forkServer(
  script: string,
  args: string[],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = fork(join(here, script), args, {
    execArgv: ["--import", "tsx", ...nodeArgs],
    stdio: "ignore",
    // Node's defaults, as anyone's own proxy runs: the floor is not tuned.
    env: { ...process.env, ...env, NODE_OPTIONS: GC_LOG.trim() },
  });
  children.push(child);
  await once(child, "message");
  return child;
}

export async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} did not become ready`);
}

export interface GatewayOptions {
  port: number;
  redisUrl: string;
  upstream: string;
  metricsEnabled: boolean;
  /** The build to run (another checkout's, for an A/B run); this checkout's dist/cli.js by default. */
  cli?: string;
  /** More Node flags, before the script (a profiler hook). */
  nodeArgs?: string[];
  /** NODE_OPTIONS in place of the image's (an A/B run of a Node flag: BENCH_BASELINE_NODE_OPTIONS). */
  nodeOptions?: string;
  env?: Record<string, string>;
  /** More of the gateway's settings, by section (upstream's are merged with the URL). */
  config?: { upstream?: Record<string, unknown>; queue?: Record<string, unknown> };
}

/**
 * Whether a build accepts redis.allowNoPersistence: builds from before the persistence check (a BENCH_BASELINE
 * such as 5b6d94d) refuse it as an unknown setting, and need it not.
 */
function knowsNoPersistence(cli: string | undefined): boolean {
  if (cli === undefined) return true;
  // The setting is in config/schema.js up to the build that split the schema by section, in
  // config/redis-settings.js since.
  return ["config/schema.js", "config/redis-settings.js"]
    .map((file) => join(dirname(cli), file))
    .some((path) => existsSync(path) && readFileSync(path, "utf8").includes("allowNoPersistence"));
}

/** Starts a gateway with its own configuration file, and waits until it is ready. */
export async function spawnGateway(options: GatewayOptions): Promise<ChildProcess> {
  const file = join(mkdtempSync(join(tmpdir(), "tunnel-bench-")), "config.yaml");
  writeFileSync(
    file,
    stringify({
      listen: { host: "127.0.0.1", port: options.port },
      metrics: { enabled: options.metricsEnabled, host: "127.0.0.1", port: 0 },
      upstream: { url: options.upstream, ...options.config?.upstream },
      ...(options.config?.queue && { queue: options.config.queue }),
      redis: {
        url: options.redisUrl,
        prefix: "bench:",
        ...(knowsNoPersistence(options.cli) && { allowNoPersistence: true }),
      },
      pricing: { default: { input: 1, output: 1 } },
    }),
  );
  const cli = options.cli ?? join(here, "../dist/cli.js");
  const gateway = spawn(process.execPath, [...(options.nodeArgs ?? []), cli, "serve", "--config", file], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      ...options.env,
      TUNNEL_CONFIG: "",
      NODE_OPTIONS: options.nodeOptions === undefined ? NODE_OPTIONS : `${options.nodeOptions}${GC_LOG}`,
    },
  });
  children.push(gateway);
  await waitReady(`http://127.0.0.1:${options.port}`);
  return gateway;
}

/**
 * The account the gateway is measured with (a balance far from its end) and its keys, each with a monthly
 * budget far from its end (under `prefix`: the default "tg:" for gateways started as users do): one without limits,
 * which admission leases serve, and one with a rate limit far above any run's rate, which is never leased,
 * so that every one of its requests reserves in Redis.
 */
export async function createBenchKeys(
  redisUrl: string,
  prefix = "bench:",
): Promise<{ key: string; limitedKey: string }> {
  const admin = createRedis({ url: redisUrl }, "cli");
  await connectRedis(admin, { url: redisUrl });
  const context = openStores(admin, { prefix, timezone: "UTC" });
  const operator: Actor = { kind: "cli" };
  await new AccountService(context).create({ id: "bench", balance: "999999999" }, operator);
  const keys = new KeyService(context);
  // As the README's quick start makes one: a key with a monthly budget, in an account.
  const budget = { budget: "999999999", period: "month" };
  const { value: key } = await keys.create({ accountId: "bench", name: "bench", ...budget }, operator);
  const { value: limitedKey } = await keys.create(
    { accountId: "bench", name: "bench, per request", rpm: 1_000_000, ...budget },
    operator,
  );
  closeRedis(admin);
  return { key, limitedKey };
}

/** The saturated scenario's two accounts, each with a key: one that floods the model server, one that does not. */
export async function createSaturatedKeys(redisUrl: string): Promise<{ noisy: string; quiet: string }> {
  const admin = createRedis({ url: redisUrl }, "cli");
  await connectRedis(admin, { url: redisUrl });
  const context = openStores(admin, { prefix: "bench:", timezone: "UTC" });
  const operator: Actor = { kind: "cli" };
  const accounts = new AccountService(context);
  const keys = new KeyService(context);
  const made: Record<string, string> = {};
  for (const id of ["noisy", "quiet"]) {
    await accounts.create({ id, balance: "999999999" }, operator);
    made[id] = (await keys.create({ accountId: id, name: id }, operator)).value;
  }
  closeRedis(admin);
  return { noisy: made.noisy as string, quiet: made.quiet as string };
}

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
/**
 * CPU time (user + system) a process has used so far, in microseconds, from /proc: every thread's, or only
 * the main thread's (where JavaScript runs).
 */
export function cpuMicros(child: Pick<ChildProcess, "pid">, mainThread = false): number {
  const stat = readFileSync(
    mainThread ? `/proc/${child.pid}/task/${child.pid}/stat` : `/proc/${child.pid}/stat`,
    "utf8",
  );
  // Fields after the parenthesised command name start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}
