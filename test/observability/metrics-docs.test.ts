// docs/metrics-and-alerts.md lists every metric src/observability/metrics.ts declares and every alert of
// helm/tunnel-gateway/files/prometheus-rules.yaml. This keeps the tables in step with both, as
// test/errors.test.ts does for the error table.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { declaredMetrics } from "./metric-names.js";

const PAGE = readFileSync(new URL("../../docs/metrics-and-alerts.md", import.meta.url), "utf8");
const RULES = new URL("../../helm/tunnel-gateway/files/prometheus-rules.yaml", import.meta.url);

/** The text of one `## ` section of the page. */
function section(title: string): string {
  const start = PAGE.indexOf(`\n## ${title}\n`);
  expect(start, `docs/metrics-and-alerts.md has a ${title} section`).toBeGreaterThan(-1);
  const end = PAGE.indexOf("\n## ", start + 1);
  return PAGE.slice(start, end === -1 ? undefined : end);
}

/** Table rows whose first cell is one code span: that span and the row's second cell. */
function rows(text: string, pattern: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, second] of text.matchAll(pattern)) {
    expect(found.has(name as string), `${name} is listed twice`).toBe(false);
    found.set(name as string, (second as string).trim());
  }
  return found;
}

describe("docs/metrics-and-alerts.md", () => {
  it("lists every metric the gateway declares, with its type, and no other", () => {
    const documented = rows(section("Metrics"), /^\| `(tunnel_gateway_\w+)` \| (\w+) \|/gm);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(declaredMetrics()));
  });

  it("lists every alert of the rule file, with its severity, and no other", () => {
    const file = parse(readFileSync(RULES, "utf8")) as {
      groups: { rules: { alert?: string; labels?: { severity?: string } }[] }[];
    };
    const alerts = file.groups
      .flatMap((group) => group.rules)
      .filter((rule) => rule.alert !== undefined)
      .map((rule) => [rule.alert, rule.labels?.severity]);
    const documented = rows(section("Alerts"), /^\| `(TunnelGateway\w+)` \| (\w+) \|/gm);
    expect(alerts.length).toBeGreaterThan(5);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(alerts));
  });
});
