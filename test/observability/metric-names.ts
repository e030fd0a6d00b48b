// Shared by the alert-rule and dashboard tests: the metric names src/observability/metric-definitions.ts declares, the
// names an expression uses, and running promtool.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collectDefaultMetrics, Registry } from "prom-client";
import { METRIC_PREFIX, METRICS } from "../../src/observability/metric-definitions.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export type MetricType = "counter" | "gauge" | "histogram" | "summary";

/** Every metric the gateway declares (metric-definitions.ts), by its full name, with its type. */
export function declaredMetrics(): Map<string, MetricType> {
  return new Map(Object.values(METRICS).map((metric) => [METRIC_PREFIX + metric.name, metric.type]));
}

/** The series names a scrape shows for these metrics: histograms as _bucket, _sum and _count only. */
export function seriesNames(metrics: Map<string, MetricType>): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of metrics) {
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    else if (type === "summary") for (const suffix of ["", "_sum", "_count"]) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** The series names of prom-client's default Node.js metrics (the gateway exports them without prefix). */
export async function defaultMetricSeriesNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = await registry.getMetricsAsJSON();
  return seriesNames(new Map(metrics.map((m) => [m.name, String(m.type) as MetricType])));
}

/** Names of the form prefix…, standing alone (not part of a recorded `level:metric:operation` name). */
export function namesIn(expr: string, prefix: string): string[] {
  const pattern = new RegExp(`(?<![\\w:])${prefix}\\w+(?![\\w:])`, "g");
  return [...new Set(expr.match(pattern) ?? [])];
}

/** The gateway's own metric names an expression reads. */
export function gatewayMetricsIn(expr: string): string[] {
  return namesIn(expr, METRIC_PREFIX);
}

/** Names with a colon: recorded series (`level:metric:operations`), which only recording rules make. */
export function recordedNamesIn(expr: string): string[] {
  return [...new Set(expr.match(/(?<![\w:])[a-zA-Z_]\w*:[\w:]*\w(?![\w:])/g) ?? [])];
}

export interface PromtoolResult {
  status: number | null;
  output: string;
}

/** Runs promtool (PROMTOOL, or promtool on the PATH) from the repository root. */
export function promtool(args: string[]): PromtoolResult {
  const command = process.env.PROMTOOL ?? "promtool";
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: "utf8", timeout: 120_000 });
  if (result.error) {
    if ((result.error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(
        `${command} was not found. These tests need promtool: install the Debian package \`prometheus\` ` +
          "(apt-get install --no-install-recommends prometheus; CI installs it), or set PROMTOOL to its path.",
      );
    throw result.error;
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
