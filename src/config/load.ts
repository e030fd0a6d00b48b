// Loads the configuration: the YAML file (`--config`, else $TUNNEL_CONFIG, else config/default.yaml), then
// TUNNEL_* environment variables, then command-line flags, validated by the schema. Every failure becomes a
// ConfigError whose message names where the bad value came from (the file and line, the variable or the
// flag), its path and what is wrong with it.
//
// A command validates only the sections it uses, so that a bad TUNNEL_PORT does not stop `accounts list`,
// which never listens; unknown settings are refused whatever the command, so that a typo never passes.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LineCounter, parseDocument, type Document as YamlDocument } from "yaml";
import type { z } from "zod";
import { ConfigError } from "./config-error.js";
import { CONFIG_FILE_VARIABLE, ENV_SETTINGS, envValue } from "./env.js";
import { settingMessage } from "./messages.js";
import { type Override, SettingOrigins } from "./origins.js";
import { type Config, configSchema } from "./schema.js";

export type { Override };

export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL("../../config/default.yaml", import.meta.url));

/** A top-level section of the configuration: listen, redis, billing, … */
export type Section = keyof Config;

export interface LoadOptions {
  /** Configuration file; replaces config/default.yaml. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Settings from command-line flags; they win over the file and the environment. */
  overrides?: readonly Override[];
}

export interface LoadedConfig<C = Config> {
  config: C;
  file: string;
  /** Where each setting came from, for messages about it. */
  origins: SettingOrigins;
}

/** The whole configuration, every section validated (what `serve` needs). */
export function loadConfig(options?: LoadOptions): LoadedConfig;
/** Only `sections` validated and returned; unknown settings anywhere are still refused. */
export function loadConfig<S extends Section>(
  options: LoadOptions & { sections: readonly S[] },
): LoadedConfig<Pick<Config, S>>;
export function loadConfig(
  options: LoadOptions & { sections?: readonly Section[] } = {},
): LoadedConfig<Partial<Config>> {
  const env = options.env ?? process.env;
  const file = options.file ?? nonEmpty(env[CONFIG_FILE_VARIABLE]) ?? DEFAULT_CONFIG_FILE;
  const used = (path: readonly PropertyKey[]) =>
    options.sections === undefined || options.sections.includes(path[0] as Section);
  const { raw, document, lines } = readYaml(file);

  const overrides: Override[] = [];
  for (const setting of ENV_SETTINGS) {
    const text = env[setting.variable];
    if (text === undefined || text === "" || !used(setting.path)) continue;
    if (setting.needsSection && !isMapping(valueAt(raw, setting.needsSection))) {
      const section = setting.needsSection.join(".");
      throw new ConfigError(
        `invalid configuration: ${setting.variable}: ${setting.path.join(".")} is set, but ${file} ` +
          `configures no ${section}: configure ${section} in the file, or unset ${setting.variable}`,
      );
    }
    overrides.push({ path: setting.path, value: envValue(setting, text), source: setting.variable });
  }
  overrides.push(...(options.overrides ?? []));
  for (const override of overrides) setPath(raw, override.path, override.value);
  const origins = new SettingOrigins(file, document, lines, overrides);

  const whole = configSchema.safeParse(raw, { error: settingMessage });
  if (whole.success) return { config: whole.data, file, origins };
  const problems = whole.error.issues.filter(
    (issue) => issue.code === "unrecognized_keys" || used(issue.path),
  );
  if (problems.length > 0) throw new ConfigError(describeIssues(problems, origins));

  // Only sections this command does not use are invalid: validate the ones it does on their own.
  const sections = options.sections ?? [];
  const mask = Object.fromEntries(sections.map((section) => [section, true])) as { [S in Section]?: true };
  const picked = Object.fromEntries(sections.map((section) => [section, raw[section]]));
  const part = configSchema.pick(mask).safeParse(picked, { error: settingMessage });
  if (!part.success) throw new ConfigError(describeIssues(part.error.issues, origins));
  return { config: part.data as Partial<Config>, file, origins };
}

function readYaml(file: string): {
  raw: Record<string, unknown>;
  document: YamlDocument;
  lines: LineCounter;
} {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot read configuration file ${file}: ${code === "ENOENT" ? "no such file" : code}`,
    );
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  const [error] = document.errors;
  if (error) {
    throw new ConfigError(`configuration file ${file} is not valid YAML: ${error.message.split("\n")[0]}`);
  }
  const parsed: unknown = document.toJS();
  if (parsed === null || parsed === undefined) return { raw: {}, document, lines };
  if (!isMapping(parsed)) {
    throw new ConfigError(`configuration file ${file} must hold a mapping of settings at the top level`);
  }
  return { raw: parsed, document, lines };
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

/** `invalid configuration: <where>: <setting>: <what is wrong>; …`, where is a file line, variable or flag. */
function describeIssues(issues: readonly z.core.$ZodIssue[], origins: SettingOrigins): string {
  const parts = issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => {
        const setting = [...path, key].join(".");
        return `${origins.ofKey(path, key)}: unknown setting ${setting}`;
      });
    }
    if (path.length === 0) return [`${origins.file}: ${issue.message}`];
    return [`${origins.near(path)}: ${path.join(".")}: ${issue.message}`];
  });
  return `invalid configuration: ${parts.join("; ")}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
