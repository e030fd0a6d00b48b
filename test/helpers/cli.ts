// Runs commands of the CLI in the test's own process, as src/cli.ts wires them — commander with its exit
// overridden, repeated options refused — with the environment of a test of its own (the suite's Redis under
// a fresh prefix, no configuration file but the default) and stdout and stderr captured. The binary itself
// is driven by test/e2e/cli.test.ts.

import { Command, CommanderError } from "commander";
import { inject, vi } from "vitest";
import { refuseRepeatedOptions } from "../../src/cli/common.js";
import { testPrefix } from "./store.js";

export interface CliRun {
  stdout: string;
  stderr: string;
  /** What the command threw: a CommanderError for usage, anything else for a failure. */
  error: unknown;
}

/**
 * Points the CLI at the suite's Redis under a fresh prefix, with no configuration file but the default;
 * returns the prefix. Undo with vi.unstubAllEnvs() after the test.
 */
export function stubCliEnvironment(): string {
  const prefix = testPrefix();
  vi.stubEnv("TUNNEL_CONFIG", "");
  vi.stubEnv("TUNNEL_REDIS_URL", inject("redisUrl"));
  vi.stubEnv("TUNNEL_REDIS_PREFIX", prefix);
  return prefix;
}

export async function runCli(register: (program: Command) => void, args: string[]): Promise<CliRun> {
  const program = new Command("tunnel-gateway").exitOverride();
  let stdout = "";
  let stderr = "";
  program.configureOutput({ writeOut: (text) => (stdout += text), writeErr: (text) => (stderr += text) });
  register(program);
  refuseRepeatedOptions(program);
  for (const command of allCommands(program)) {
    command
      .exitOverride()
      .configureOutput({ writeOut: (text) => (stdout += text), writeErr: (text) => (stderr += text) });
  }
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  let error: unknown = null;
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (thrown) {
    error = thrown;
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr, error };
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...allCommands(sub)]);
}

/** The usage error a run ended with (exit 2), or a failure of the test. */
export function usageOf(run: CliRun): CommanderError {
  if (!(run.error instanceof CommanderError))
    throw new Error(`expected a usage error, got ${String(run.error)}`);
  return run.error;
}
