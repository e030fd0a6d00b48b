// What every command of the CLI shares: the common options, the exit codes, the actor its changes are
// recorded as, and the refusals of a command line (usage errors, exit 2, found before anything is loaded).

import { type Command, CommanderError } from "commander";
import type { Override } from "../config/load.js";
import { readThresholdList } from "../core/thresholds.js";
import type { Actor } from "../store/audit/audit-store.js";

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** Changes made with the CLI are recorded in the audit log as made by "cli". */
export const CLI: Actor = { kind: "cli" };

/** The options every command takes (common). */
export interface CommonOptions {
  config?: string;
  redis?: string;
  json?: boolean;
}

export function common(command: Command): Command {
  return command
    .option("--config <file>", "configuration file (default: config/default.yaml, or $TUNNEL_CONFIG)")
    .option("--redis <url>", "Redis URL (overrides the configuration and $TUNNEL_REDIS_URL)")
    .option("--json", "print one JSON document instead of text");
}

/** --redis as the setting it overrides, over the file and $TUNNEL_REDIS_URL. */
export function redisFlagOverride(options: CommonOptions): Override[] {
  return options.redis === undefined
    ? []
    : [{ path: ["redis", "url"], value: options.redis, source: "--redis" }];
}

/** The package's version, for --version. */
export { version } from "../core/version.js";

/**
 * Makes giving one setting twice a usage error on every command — `--budget 5 --no-budget`,
 * `--log-bodies --no-log-bodies`, `--budget 5 --budget 6` — rather than letting the last one win silently.
 */
export function refuseRepeatedOptions(command: Command): void {
  const given = new Map<string, string>();
  for (const option of command.options) {
    const name = option.name();
    command.on(`option:${name}`, () => {
      const earlier = given.get(option.attributeName());
      if (earlier !== undefined) {
        const twice =
          earlier === option.flags ? "may be given only once" : `cannot be used with option '${earlier}'`;
        command.error(`error: option '${option.flags}' ${twice}`, {
          exitCode: EXIT_USAGE,
          code: "usage.repeated",
        });
      }
      given.set(option.attributeName(), option.flags);
    });
  }
  for (const sub of command.commands) refuseRepeatedOptions(sub);
}

/** Refuses the command line as commander does its own usage errors: exit 2, before anything is loaded. */
export function usageError(message: string): never {
  throw new CommanderError(EXIT_USAGE, "usage", `error: ${message}`);
}

/** A number when the text is one, else the text, for the configuration schema to refuse with its name. */
export function numeric(text: string): number | string {
  return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

/**
 * --alert-at as the services take it: percents, null for `default` (or no option), or the text itself when it is
 * not a list of whole percents, for the services to refuse with their message.
 */
export function thresholdsOption(text: string | undefined): unknown {
  if (text === undefined || text.trim() === "default") return text === undefined ? undefined : null;
  return readThresholdList(text) ?? text;
}

/** --budgets "100/day,2000/month" as the services take it: a list of window texts, each checked there. */
export function windowsOption(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}
