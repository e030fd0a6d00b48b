// Loads the configuration: the YAML file (`--config`, else $TUNNEL_CONFIG, else config/default.yaml), then
// TUNNEL_* environment variables, then command-line flags, validated by the schema. Every failure becomes a
// ConfigError whose message names where the bad value came from, its path and what is wrong with it.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { z } from "zod";
import { ConfigError } from "./config-error.js";
import { CONFIG_FILE_VARIABLE, ENV_SETTINGS, envValue } from "./env.js";
import { type Config, configSchema } from "./schema.js";

export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL("../../config/default.yaml", import.meta.url));

/** One setting given outside the file, remembered so that an error can name where it came from. */
export interface Override {
  path: readonly string[];
  value: unknown;
  /** "TUNNEL_PORT", "--port", … */
  source: string;
}

export interface LoadOptions {
  /** Configuration file; replaces config/default.yaml. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Settings from command-line flags; they win over the file and the environment. */
  overrides?: readonly Override[];
}

export interface LoadedConfig {
  config: Config;
  file: string;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? nonEmpty(env[CONFIG_FILE_VARIABLE]) ?? DEFAULT_CONFIG_FILE;
  const raw = readYaml(file);

  const overrides: Override[] = [];
  for (const setting of ENV_SETTINGS) {
    const text = env[setting.variable];
    if (text !== undefined && text !== "") {
      if (setting.needsSection && !isMapping(valueAt(raw, setting.needsSection))) {
        const section = setting.needsSection.join(".");
        throw new ConfigError(
          `invalid configuration (${file}): ${setting.variable} (${setting.path.join(".")}) is set, ` +
            `but no ${section} is configured: configure ${section} in the file, or unset ${setting.variable}`,
        );
      }
      overrides.push({ path: setting.path, value: envValue(setting, text), source: setting.variable });
    }
  }
  overrides.push(...(options.overrides ?? []));
  for (const override of overrides) setPath(raw, override.path, override.value);

  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(describeIssues(result.error.issues, file, overrides));
  return { config: result.data, file };
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot read configuration file ${file}: ${code === "ENOENT" ? "no such file" : code}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message.split("\n")[0] : String(error);
    throw new ConfigError(`configuration file ${file} is not valid YAML: ${detail}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`configuration file ${file} must hold a mapping of settings at the top level`);
  }
  return parsed as Record<string, unknown>;
}

function valueAt(source: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = source;
  for (const segment of path) node = isMapping(node) ? node[segment] : undefined;
  return node;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of path.slice(0, -1)) {
    if (!isMapping(node[segment])) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  file: string,
  overrides: readonly Override[],
): string {
  const parts = issues.map((issue) => {
    const path = issue.path.map(String);
    const dotted = path.join(".") || "(top level)";
    // The last override of a path is the one in effect: --redis wins over TUNNEL_REDIS_URL.
    const override = overrides.findLast((o) => o.path.join(".") === dotted);
    const where = override ? `${override.source} (${dotted})` : dotted;
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => (path.length ? `${dotted}.${k}` : k)).join(", ");
      return `unknown setting ${keys}`;
    }
    return `${where}: ${issue.message}`;
  });
  return `invalid configuration (${file}): ${parts.join("; ")}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
