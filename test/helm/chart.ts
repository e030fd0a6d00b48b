// The Helm chart's files as data: its values (merged as Helm merges them, for checks against the schema), schema,
// templates and README. Rendering is the real helm's job: see helm.ts.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

export const CHART_DIR = fileURLToPath(new URL("../../helm/tunnel-gateway/", import.meta.url));
export const BAD_VALUES_DIR = fileURLToPath(new URL("./bad-values/", import.meta.url));

export type Values = Record<string, any>;
export type JsonSchema = Record<string, any>;

export function chartFile(relative: string): string {
  return readFileSync(`${CHART_DIR}${relative}`, "utf8");
}

export function readYamlFile(path: string): Values {
  const parsed = parseYaml(readFileSync(path, "utf8"));
  return (parsed ?? {}) as Values;
}

export function defaultValues(): Values {
  return readYamlFile(`${CHART_DIR}values.yaml`);
}

export function valuesSchema(): JsonSchema {
  return JSON.parse(chartFile("values.schema.json")) as JsonSchema;
}

/** The ci/*-values.yaml scenarios, by file name. */
export function ciScenarios(): string[] {
  return readdirSync(`${CHART_DIR}ci`)
    .filter((name) => name.endsWith("-values.yaml"))
    .sort();
}

export function badExamples(): string[] {
  return readdirSync(BAD_VALUES_DIR)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
}

function isMap(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Helm's coalescing of a values file over the defaults: maps merge deeply, anything else (lists too) replaces, null deletes. */
export function helmMerge(base: Values, override: Values): Values {
  const result: Values = structuredClone(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete result[key];
    else if (isMap(value) && isMap(result[key])) result[key] = helmMerge(result[key], value);
    else result[key] = structuredClone(value);
  }
  return result;
}

/** values.yaml with a values file merged over it, as `helm template -f <file>` sees them. */
export function valuesWith(path: string): Values {
  return helmMerge(defaultValues(), readYamlFile(path));
}

/** Where the chart mounts gatewayTls.existingSecret in the gateway container. */
export const TLS_DIR = "/etc/tunnel-gateway/tls";

/** A dotted path into a values tree, or undefined when any step is missing. */
export function valueAt(values: Values, path: readonly string[]): unknown {
  let node: unknown = values;
  for (const segment of path) {
    if (!isMap(node) || !(segment in node)) return undefined;
    node = node[segment];
  }
  return node;
}

/**
 * The leaf values of values.yaml: walked along the schema, a value is a leaf unless its schema lists
 * properties (free-form maps such as annotations or resources, and lists, are leaves).
 */
export function leafValues(
  values: Values,
  schema: JsonSchema,
): Array<{ path: string; value: unknown; schema: JsonSchema }> {
  const leaves: Array<{ path: string; value: unknown; schema: JsonSchema }> = [];
  const walk = (value: unknown, node: JsonSchema, path: string[]) => {
    if (node.properties && isMap(value)) {
      for (const [key, child] of Object.entries(value)) {
        const childSchema = node.properties[key];
        if (!childSchema) throw new Error(`values.yaml has ${[...path, key].join(".")}, the schema does not`);
        walk(child, childSchema, [...path, key]);
      }
    } else {
      leaves.push({ path: path.join("."), value, schema: node });
    }
  };
  walk(values, schema, []);
  return leaves;
}

export interface TemplateFile {
  name: string;
  text: string;
}

/** The files of templates/, by their path in it (tests/test-connection.yaml for the helm test hooks). */
export function templates(): TemplateFile[] {
  return (readdirSync(`${CHART_DIR}templates`, { recursive: true }) as string[])
    .filter((name) => !name.split("/").some((part) => part.startsWith(".")))
    .filter((name) => statSync(`${CHART_DIR}templates/${name}`).isFile())
    .sort()
    .map((name) => ({ name, text: chartFile(`templates/${name}`) }));
}

export interface Action {
  /** The action's text without delimiters, trim markers and surrounding spaces. */
  body: string;
  line: number;
}

/** The template actions ({{ ... }}) of a file, in order. */
export function actions(text: string): Action[] {
  const found: Action[] = [];
  for (const match of text.matchAll(/\{\{(-\s)?([\s\S]*?)(\s-)?\}\}/g)) {
    const line = text.slice(0, match.index).split("\n").length;
    found.push({ body: (match[2] ?? "").trim(), line });
  }
  return found;
}

/** The .Values paths a template reads, directly or through a variable assigned from a .Values path. */
export function valuesReferences(text: string): string[][] {
  const aliases = new Map<string, string[]>();
  for (const match of text.matchAll(/\$(\w+)\s*:=\s*\$?\.Values((?:\.\w+)+)\s*-?\}\}/g)) {
    aliases.set(match[1] as string, (match[2] as string).slice(1).split("."));
  }
  const references: string[][] = [];
  for (const match of text.matchAll(/\$?\.Values((?:\.\w+)+)/g)) {
    references.push((match[1] as string).slice(1).split("."));
  }
  for (const match of text.matchAll(/\$(\w+)((?:\.\w+)+)/g)) {
    const base = aliases.get(match[1] as string);
    if (base) references.push([...base, ...(match[2] as string).slice(1).split(".")]);
  }
  return references;
}
