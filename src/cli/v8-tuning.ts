// The V8 tuning `serve` runs with, however the gateway is started. The container image sets it in NODE_OPTIONS
// (Dockerfile); without this, `node dist/cli.js serve` and `npx tunnel-gateway serve` would serve on V8's
// defaults and the same gateway would behave differently by how it was started (docs/deploying.md, "V8
// tuning"). V8 sizes its heap when the process starts, so a heap flag cannot be applied to a running process
// (v8.setFlagsFromString is documented as undefined behaviour after start-up): `serve` starts the serving
// process anew with the flags, passes signals on to it and ends as it ended — same exit code, or killed by the
// same signal. The operator's own setting wins: a flag of the same name in NODE_OPTIONS or on node's command
// line means no relaunch, and so does the image, whose NODE_OPTIONS carries it.
//
// Imported by src/cli.ts before anything else is loaded, so the waiting process stays small: only Node's own
// modules here.

import { spawn } from "node:child_process";

/** A 64 MiB young-generation semi-space instead of 16: fewer scavenges under load (docs/benchmarks.md). */
export const SERVE_V8_FLAGS: readonly string[] = ["--max-semi-space-size=64"];
/**
 * Set for the relaunched process, so that it never relaunches itself: "exec" when it replaced the process that
 * was started, "child" when it runs beside it (then it watches that its parent is still there).
 */
export const RELAUNCHED_VARIABLE = "TUNNEL_V8_RELAUNCHED";
/** How often a relaunched child looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 1000;
/** The signals passed on to the serving process: a shutdown's, a terminal's, and the reload-style ones. */
const PASSED_ON: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR2"];

/** `--max_semi_space_size=1` and `--max-semi-space-size 1` both name the flag V8 knows as max_semi_space_size. */
const flagName = (flag: string) => (flag.split("=")[0] as string).replace(/^--/, "").replaceAll("_", "-");

/**
 * The flags the serving process lacks: none unless the command is `serve`, it was not relaunched already, and
 * neither NODE_OPTIONS nor node's own command line names the flag.
 */
export function missingServeFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
): string[] {
  if (argv[2] !== "serve" || env[RELAUNCHED_VARIABLE] !== undefined) return [];
  const given = new Set(
    [...(env.NODE_OPTIONS ?? "").split(/\s+/), ...execArgv].filter((f) => f.startsWith("--")).map(flagName),
  );
  return SERVE_V8_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/** process.execve (Node 22.15 and 23.11 on): replaces this process' program, keeping its pid. */
type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/**
 * Runs this command again with `flags`. Where Node can (process.execve), the serving process replaces this one:
 * same pid, so signals and the exit code are its own and nothing is left waiting. Elsewhere (Node 20) it is a
 * child, and this process passes signals on and ends as the child ends. The child gets a process group of its
 * own, so that a terminal's Ctrl-C reaches it once (passed on from here) and not twice — a second signal aborts
 * the drain (run-gateway.ts).
 */
export function relaunchWith(
  flags: readonly string[],
  execve = (process as { execve?: Execve }).execve,
): void {
  const args = [...process.execArgv, ...flags, ...process.argv.slice(1)];
  if (execve !== undefined) {
    const env = { ...process.env, [RELAUNCHED_VARIABLE]: "exec" };
    execve.call(process, process.execPath, [process.execPath, ...args], env);
  }
  const env = { ...process.env, [RELAUNCHED_VARIABLE]: "child" };
  const child = spawn(process.execPath, args, { stdio: "inherit", env, detached: true });
  const passOn = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of PASSED_ON) process.on(signal, passOn);
  child.once("error", (error) => {
    process.stderr.write(`error: could not start the serving process: ${error.message}\n`);
    process.exit(1);
  });
  child.once("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    // Killed by a signal: die by the same one, so that whoever started us sees what happened.
    for (const passed of PASSED_ON) process.off(passed, passOn);
    process.kill(process.pid, signal);
  });
}

/**
 * In a relaunched child: the process that started it passes signals on, but one killed outright (SIGKILL, the
 * OOM killer) passes nothing, and the child, in a process group of its own, would serve on unseen. So it looks
 * once a second whether its parent is still there, and shuts down as on SIGTERM (draining) when it is not.
 */
export function watchLauncher(env: NodeJS.ProcessEnv): void {
  if (env[RELAUNCHED_VARIABLE] !== "child") return;
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, PARENT_CHECK_MS);
  timer.unref();
}
