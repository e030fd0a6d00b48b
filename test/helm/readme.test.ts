import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { configSchema } from "../../src/config/schema.js";
import { chartFile, ciScenarios, defaultValues, leafValues, valuesSchema } from "./chart.js";

const readme = chartFile("README.md");

/** The rows of the values table: key, type, default (as written), description. */
function valuesTable(): Map<string, { type: string; value: string; description: string }> {
  const section = readme.slice(readme.indexOf("\n## Values\n"));
  const rows = new Map<string, { type: string; value: string; description: string }>();
  for (const match of section.matchAll(/^\| `([^`]+)` \| ([^|]+) \| `(.*)` \| (.+) \|$/gm)) {
    rows.set(match[1] as string, {
      type: (match[2] as string).trim(),
      value: match[3] as string,
      description: match[4] as string,
    });
  }
  return rows;
}

function yamlBlocks(): unknown[] {
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseYaml(m[1] as string));
}

describe("the chart README", () => {
  const leaves = leafValues(defaultValues(), valuesSchema());
  const table = valuesTable();

  it("lists every value of values.yaml in the values table, and nothing else", () => {
    expect(leaves.length).toBeGreaterThan(100);
    expect([...table.keys()].sort()).toEqual(leaves.map((leaf) => leaf.path).sort());
  });

  it("gives each value its default from values.yaml", () => {
    for (const leaf of leaves) {
      expect(table.get(leaf.path)?.value, leaf.path).toBe(JSON.stringify(leaf.value));
    }
  });

  it("describes each value in the table", () => {
    for (const [key, row] of table) expect(row.description.length, key).toBeGreaterThan(10);
  });

  it("names every ci scenario and the helm commands to check them", () => {
    expect(readme).toContain("helm lint helm/tunnel-gateway");
    expect(readme).toContain("helm template t helm/tunnel-gateway -f helm/tunnel-gateway/ci/");
    for (const scenario of ciScenarios()) expect(readme).toContain(scenario.replace("-values.yaml", ""));
  });

  it("shows a container block for existing pods whose configuration the gateway accepts", () => {
    const blocks = yamlBlocks() as any[];
    const configMap = blocks.find((b) => b?.kind === "ConfigMap");
    const parsed = configSchema.safeParse(parseYaml(configMap.data["config.yaml"]));
    expect(parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe("");
    expect(parsed.data?.listen.host).toBe("0.0.0.0");

    const podSpec = blocks.find((b) => Array.isArray(b?.containers));
    const gateway = podSpec.containers.find((c: any) => c.name === "gateway");
    expect(gateway.livenessProbe.httpGet.path).toBe("/healthz");
    expect(gateway.readinessProbe.httpGet.path).toBe("/readyz");
    expect(gateway.env).toContainEqual({ name: "TUNNEL_CONFIG", value: "/etc/tunnel-gateway/config.yaml" });
    expect(gateway.securityContext.readOnlyRootFilesystem).toBe(true);
    // preStop 5 + drainSeconds 30 + margin 10, and the model server outlives the drain
    expect(podSpec.terminationGracePeriodSeconds).toBe(5 + (parsed.data?.shutdown.drainSeconds ?? 0) + 10);
    expect(podSpec.containers[0].lifecycle.preStop.exec.command).toEqual(["sleep", "35"]);
    expect(podSpec.enableServiceLinks).toBe(false);
  });

  it("shows example values that the schema's sections know", () => {
    const blocks = yamlBlocks() as any[];
    const sidecar = blocks.find((b) => b?.mode === "sidecar");
    const standalone = blocks.find((b) => b?.mode === "standalone");
    for (const example of [sidecar, standalone]) {
      for (const key of Object.keys(example)) expect(valuesSchema().properties).toHaveProperty(key);
    }
    expect(sidecar.modelServer.args).toContain("--host=127.0.0.1");
    expect(standalone.upstream.url).toMatch(/^http:\/\//);
  });
});
