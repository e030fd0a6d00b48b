// The Grafana dashboard in helm/tunnel-gateway/files/grafana-dashboard.json: importable anywhere (the
// Prometheus data source is a variable, never a uid of one installation), every query reads metrics the
// gateway exports and parses as PromQL, and every panel is placed and has something to show.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import {
  declaredMetrics,
  defaultMetricSeriesNames,
  gatewayMetricsIn,
  namesIn,
  promtool,
  recordedNamesIn,
  seriesNames,
} from "./metric-names.js";

const DASHBOARD = fileURLToPath(
  new URL("../../helm/tunnel-gateway/files/grafana-dashboard.json", import.meta.url),
);
const RULES = fileURLToPath(
  new URL("../../helm/tunnel-gateway/files/prometheus-rules.yaml", import.meta.url),
);

/** The data source variable, as Grafana writes a reference to it: `${datasource}`. */
const DATASOURCE_UID = `\${datasource}`;
const DATASOURCE = { type: "prometheus", uid: DATASOURCE_UID };
/** Variables Grafana defines itself. */
const BUILTIN_VARIABLES = ["__rate_interval", "__interval", "__range", "__range_s", "__interval_ms"];

interface Target {
  datasource?: unknown;
  expr?: string;
  refId?: string;
  [key: string]: unknown;
}

interface Panel {
  id?: number;
  type?: string;
  title?: string;
  datasource?: unknown;
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
  [key: string]: unknown;
}

interface Variable {
  name: string;
  type: string;
  query?: unknown;
  definition?: string;
  datasource?: unknown;
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
}

interface Dashboard {
  uid: string;
  title: string;
  tags: string[];
  refresh: string;
  schemaVersion: number;
  time: { from: string; to: string };
  templating: { list: Variable[] };
  panels: Panel[];
  __inputs?: unknown;
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as Dashboard;

/** Every panel, rows' nested panels included. */
function allPanels(panels: Panel[] = dashboard.panels): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}

const rows = allPanels().filter((panel) => panel.type === "row");
const panels = allPanels().filter((panel) => panel.type !== "row");
const targets = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })));
const expressions = targets.map(({ target }) => target.expr ?? "");
const variable = (name: string) => dashboard.templating.list.find((v) => v.name === name);

/** Every value under a key named `key`, anywhere in the document, with its path. */
function valuesOf(key: string, node: unknown = dashboard, path = "$"): { path: string; value: unknown }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => valuesOf(key, item, `${path}[${i}]`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([k, value]) => [
    ...(k === key ? [{ path: `${path}.${k}`, value }] : []),
    ...valuesOf(key, value, `${path}.${k}`),
  ]);
}

describe("the dashboard", () => {
  it("is identified and set up as documented", () => {
    expect(dashboard).toMatchObject({
      uid: "tunnel-gateway",
      title: "tunnel-gateway",
      refresh: "30s",
      time: { from: "now-6h", to: "now" },
    });
    expect(dashboard.tags).toContain("tunnel-gateway");
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.schemaVersion).toBeLessThanOrEqual(41);
  });

  it("has a Prometheus data source variable", () => {
    expect(variable("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
  });

  it("points every panel, target and query variable at the data source variable", () => {
    const users = [
      ...panels.map((panel) => ({ what: `panel ${panel.id} ${panel.title}`, datasource: panel.datasource })),
      ...targets.map(({ panel, target }) => ({
        what: `target ${target.refId} of panel ${panel.id} ${panel.title}`,
        datasource: target.datasource,
      })),
      ...dashboard.templating.list
        .filter((v) => v.type === "query")
        .map((v) => ({ what: `variable ${v.name}`, datasource: v.datasource })),
    ];
    for (const { what, datasource } of users) expect(datasource, what).toEqual(DATASOURCE);
  });

  it("hard-codes no data source anywhere", () => {
    for (const { path, value } of valuesOf("datasource")) expect(value, path).toEqual(DATASOURCE);
    // The only uids: the dashboard's own and the variable's.
    const uids = valuesOf("uid").filter(({ path }) => path !== "$.uid");
    for (const { path, value } of uids) expect(value, path).toBe(DATASOURCE_UID);
    // Nor an export's ${DS_…} input: the data source is chosen in the variable, not at import.
    expect(dashboard.__inputs).toBeUndefined();
    expect(readFileSync(DASHBOARD, "utf8")).not.toMatch(/\$\{DS_/);
  });

  it("filters by account and model, each multi-valued with All", () => {
    expect(variable("account")).toMatchObject({
      type: "query",
      multi: true,
      includeAll: true,
      allValue: ".*",
    });
    expect(String(variable("account")?.query)).toMatch(
      /^label_values\(tunnel_gateway_spend_rubles_total(\{[^}]*\})?, ?account\)$/,
    );
    expect(variable("model")).toMatchObject({ type: "query", multi: true, includeAll: true, allValue: ".*" });
    expect(String(variable("model")?.query)).toMatch(
      /^label_values\(tunnel_gateway_requests_total(\{[^}]*\})?, ?model\)$/,
    );
    expect(expressions.some((expr) => expr.includes('account=~"$account"'))).toBe(true);
    expect(expressions.some((expr) => expr.includes('model=~"$model"'))).toBe(true);
  });

  it("uses only variables it defines", () => {
    const defined = new Set([...dashboard.templating.list.map((v) => v.name), ...BUILTIN_VARIABLES]);
    const queries = [...expressions, ...dashboard.templating.list.map((v) => String(v.query ?? ""))];
    const used = new Set(queries.flatMap((q) => [...q.matchAll(/\$\{?(\w+)/g)].map((m) => m[1] as string)));
    expect([...used].filter((name) => !defined.has(name))).toEqual([]);
  });

  it("gives every panel a title, a place on the grid and at least one query", () => {
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of [...panels, ...rows]) {
      const what = `panel ${panel.id} (${panel.type})`;
      expect(panel.title, `${what}: title`).toMatch(/\S/);
      const grid = panel.gridPos;
      expect(grid, `${what}: gridPos`).toEqual({
        x: expect.any(Number),
        y: expect.any(Number),
        w: expect.any(Number),
        h: expect.any(Number),
      });
      expect(
        grid && grid.w > 0 && grid.h > 0 && grid.x >= 0 && grid.y >= 0 && grid.x + grid.w <= 24,
        what,
      ).toBe(true);
    }
    for (const panel of panels) {
      expect(panel.targets?.length, `panel ${panel.id} ${panel.title}: targets`).toBeGreaterThan(0);
      for (const target of panel.targets ?? [])
        expect(target.expr, `panel ${panel.id} ${panel.title}: expr of ${target.refId}`).toMatch(/\S/);
      const refIds = (panel.targets ?? []).map((target) => target.refId);
      expect(new Set(refIds).size, `panel ${panel.id} ${panel.title}: refIds`).toBe(refIds.length);
    }
  });

  it("gives every panel its own id, and no two panels the same place", () => {
    const ids = allPanels().map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Map<string, number | undefined>();
    for (const panel of allPanels()) {
      const { x, y, w, h } = panel.gridPos as NonNullable<Panel["gridPos"]>;
      for (let i = x; i < x + w; i++)
        for (let j = y; j < y + h; j++) {
          const cell = `${i},${j}`;
          expect(
            cells.get(cell),
            `panels ${cells.get(cell)} and ${panel.id} overlap at ${cell}`,
          ).toBeUndefined();
          cells.set(cell, panel.id);
        }
    }
  });
});

describe("the dashboard's queries", () => {
  it("read only metrics src/observability/metrics.ts declares, histograms by _bucket, _sum and _count", () => {
    const exported = seriesNames(declaredMetrics());
    const used = new Set(
      [...expressions, ...dashboard.templating.list.map((v) => String(v.query ?? ""))].flatMap(
        gatewayMetricsIn,
      ),
    );
    expect(used.size).toBeGreaterThan(0);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it("read only Node.js metrics prom-client exports by default", async () => {
    const exported = await defaultMetricSeriesNames();
    const used = new Set(
      expressions.flatMap((expr) => [...namesIn(expr, "nodejs_"), ...namesIn(expr, "process_")]),
    );
    expect(used.size).toBeGreaterThan(0);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it("read only recorded series the rule file records (the alert thresholds)", () => {
    const rules = parse(readFileSync(RULES, "utf8")) as { groups: { rules: { record?: string }[] }[] };
    const records = new Set(
      rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))),
    );
    const used = new Set(expressions.flatMap(recordedNamesIn));
    expect(used.size).toBeGreaterThan(0);
    expect([...used].filter((name) => !records.has(name))).toEqual([]);
  });

  describe("parse as PromQL", () => {
    const directory = mkdtempSync(join(tmpdir(), "tunnel-gateway-dashboard-"));
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it("(promtool check rules on each query as a recording rule, variables filled in)", () => {
      const filled = (expr: string) =>
        expr
          .replaceAll("$__rate_interval", "5m")
          .replaceAll("$__range", "6h")
          .replaceAll("$__interval", "1m")
          .replace(/\$\{?\w+\}?/g, ".*");
      const file = join(directory, "dashboard-queries.yaml");
      const queries = [
        ...targets.map(({ panel, target }) => ({
          record: `dashboard:panel_${panel.id}:${target.refId}`,
          expr: filled(target.expr ?? ""),
        })),
        ...dashboard.templating.list
          .filter((v) => v.type === "query")
          .map((v) => ({
            record: `dashboard:variable:${v.name}`,
            // label_values(<selector>, <label>) is Grafana's, not PromQL: check the selector.
            expr: filled(String(v.query).replace(/^label_values\((.*), ?\w+\)$/, "$1")),
          })),
      ];
      writeFileSync(file, stringify({ groups: [{ name: "dashboard", rules: queries }] }));
      const { status, output } = promtool(["check", "rules", file]);
      expect(status, `a dashboard query does not parse:\n${output}`).toBe(0);
      expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
    });
  });
});
