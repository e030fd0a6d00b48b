// The Prometheus rules in helm/tunnel-gateway/files/prometheus-rules.yaml: promtool accepts them and passes
// their unit tests (prometheus-rules.test.yaml), and the file keeps the contract the Helm chart and the
// metrics rely on: the thresholds group first, only metrics the gateway exports, every alert documented and
// tested.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Metrics } from "../../src/observability/metrics.js";
import { declaredMetrics, gatewayMetricsIn, promtool, recordedNamesIn, seriesNames } from "./metric-names.js";

const RULES = fileURLToPath(
  new URL("../../helm/tunnel-gateway/files/prometheus-rules.yaml", import.meta.url),
);
const RULE_TESTS = fileURLToPath(new URL("./prometheus-rules.test.yaml", import.meta.url));

const THRESHOLD_GROUP = "tunnel-gateway-thresholds";
const THRESHOLD_PREFIX = "tunnel_gateway:alert_threshold:";
/** The thresholds the chart renders from its values, with their defaults. */
const THRESHOLDS: Record<string, number> = {
  key_budget_fraction: 0.1,
  account_balance_fraction: 0.1,
  refusal_ratio: 0.05,
  upstream_error_ratio: 0.05,
  overhead_p99_seconds: 0.005,
  settlements_pending: 1,
  webhook_delivery_age_seconds: 3600,
  queue_wait_p95_seconds: 10,
  sign_in_failures: 20,
};

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

interface RuleTestFile {
  rule_files: string[];
  tests: {
    alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: unknown[] | null }[];
    promql_expr_test?: { expr: string; exp_samples: { labels: string; value: number }[] }[];
  }[];
}

const rules = parse(readFileSync(RULES, "utf8")) as RuleFile;
const ruleTests = parse(readFileSync(RULE_TESTS, "utf8")) as RuleTestFile;
const allRules = rules.groups.flatMap((group) => group.rules);
const alerts = allRules.filter((rule) => rule.alert !== undefined);

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

describe("promtool", () => {
  it("accepts the rule file (promtool check rules)", () => {
    const { status, output } = promtool(["check", "rules", RULES]);
    expect(status, `promtool check rules ${RULES} failed:\n${output}`).toBe(0);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("passes the rules' unit tests (promtool test rules)", () => {
    const { status, output } = promtool(["test", "rules", RULE_TESTS]);
    expect(status, `promtool test rules ${RULE_TESTS} failed:\n${output}`).toBe(0);
    expect(output).toContain("SUCCESS");
  });
});

describe("the rule file", () => {
  it("has alerts, each with a known severity, a summary, a description and a for: duration", () => {
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      const where = `alert ${alert.alert}`;
      expect(["warning", "critical"], `${where}: labels.severity`).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, `${where}: annotations.summary`).toMatch(/\S/);
      expect(alert.annotations?.description, `${where}: annotations.description`).toMatch(/\S/);
      expect(alert.for, `${where}: for`).toMatch(/^\d+[smh]$/);
    }
  });

  it("names every group and every alert once", () => {
    const groups = rules.groups.map((group) => group.name);
    expect(new Set(groups).size).toBe(groups.length);
    const names = alerts.map((alert) => alert.alert as string);
    expect(new Set(names).size).toBe(names.length);
  });

  it("starts with the thresholds group: exactly the thresholds, each recorded as vector(<default>)", () => {
    const first = rules.groups[0];
    expect(first?.name).toBe(THRESHOLD_GROUP);
    const recorded = Object.fromEntries(
      (first?.rules ?? []).map((rule) => {
        expect(rule.alert, "the thresholds group holds recording rules only").toBeUndefined();
        expect(rule.record).toMatch(new RegExp(`^${THRESHOLD_PREFIX}`));
        const vector = /^vector\(([0-9.eE+-]+)\)$/;
        expect(rule.expr.trim(), `${rule.record}: expr ${rule.expr} is not vector(<number>)`).toMatch(vector);
        const value = vector.exec(rule.expr.trim());
        return [(rule.record as string).slice(THRESHOLD_PREFIX.length), Number(value?.[1])];
      }),
    );
    expect(recorded).toEqual(THRESHOLDS);
    const elsewhere = rules.groups.slice(1).flatMap((group) => group.rules);
    expect(elsewhere.filter((rule) => rule.record?.startsWith(THRESHOLD_PREFIX))).toEqual([]);
  });

  it("reads every threshold with scalar(max()) in some alert, and no threshold it does not define", () => {
    const read = new Set<string>();
    for (const alert of alerts) {
      for (const name of recordedNamesIn(alert.expr).filter((n) => n.startsWith(THRESHOLD_PREFIX))) {
        // max(): two releases recording the same threshold must still give scalar() one series.
        expect(alert.expr, `alert ${alert.alert} reads ${name} without scalar(max())`).toContain(
          `scalar(max(${name}))`,
        );
        read.add(name.slice(THRESHOLD_PREFIX.length));
      }
    }
    expect(sorted(read)).toEqual(sorted(Object.keys(THRESHOLDS)));
  });

  it("uses only metrics src/observability/metrics.ts declares, histograms by _bucket, _sum and _count", () => {
    const exported = seriesNames(declaredMetrics());
    const used = new Set(allRules.flatMap((rule) => gatewayMetricsIn(rule.expr)));
    expect(used.size).toBeGreaterThan(0);
    expect(sorted([...used].filter((name) => !exported.has(name)))).toEqual([]);
  });

  it("reads only recorded series that it records itself", () => {
    const records = new Set(allRules.flatMap((rule) => (rule.record ? [rule.record] : [])));
    const read = new Set(allRules.flatMap((rule) => recordedNamesIn(rule.expr)));
    expect(sorted([...read].filter((name) => !records.has(name)))).toEqual([]);
  });
});

describe("the rules' unit tests", () => {
  it("load this rule file", () => {
    const loaded = ruleTests.rule_files.map((file) => resolve(dirname(RULE_TESTS), file));
    expect(loaded).toEqual([RULES]);
  });

  it("have a case where each alert fires and one where it does not", () => {
    const cases = ruleTests.tests.flatMap((test) => test.alert_rule_test ?? []);
    const firing = new Set(cases.filter((c) => (c.exp_alerts ?? []).length > 0).map((c) => c.alertname));
    const silent = new Set(cases.filter((c) => (c.exp_alerts ?? []).length === 0).map((c) => c.alertname));
    const names = sorted(alerts.map((alert) => alert.alert as string));
    expect(sorted(firing)).toEqual(names);
    expect(sorted(silent)).toEqual(names);
  });

  it("check that every threshold evaluates to its default", () => {
    const checked = Object.fromEntries(
      ruleTests.tests
        .flatMap((test) => test.promql_expr_test ?? [])
        .filter((c) => c.expr.startsWith(THRESHOLD_PREFIX))
        .map((c) => [c.expr.slice(THRESHOLD_PREFIX.length), c.exp_samples.map((s) => s.value)]),
    );
    expect(checked).toEqual(Object.fromEntries(Object.entries(THRESHOLDS).map(([name, v]) => [name, [v]])));
  });
});

describe("the metric declarations", () => {
  it("are exactly the metrics the Metrics class registers, with their types", async () => {
    const metrics = new Metrics(
      { perKey: true, maxKeySeries: 10, maxModelSeries: 10, defaultMetrics: false },
      {
        inFlight: () => 0,
        runningKeys: () => [],
        settlementsPending: () => 0,
        redisUp: () => true,
        now: () => 0,
      },
    );
    const registered = (await metrics.registry.getMetricsAsJSON()).map((m) => [m.name, String(m.type)]);
    expect(sorted([...declaredMetrics()].map(([name, type]) => `${name} ${type}`))).toEqual(
      sorted(registered.map(([name, type]) => `${name} ${type}`)),
    );
  });
});
