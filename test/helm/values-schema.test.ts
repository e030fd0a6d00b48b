import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import {
  BAD_VALUES_DIR,
  badExamples,
  CHART_DIR,
  ciScenarios,
  defaultValues,
  helmMerge,
  type JsonSchema,
  readYamlFile,
  valuesSchema,
  valuesWith,
} from "./chart.js";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function validator() {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv.compile(valuesSchema());
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || "/"} ${e.keyword} ${JSON.stringify(e.params)}`)
    .join("\n");
}

/** Object schemas that may hold any keys: Kubernetes objects and maps the chart passes through whole. */
const FREE_FORM = new Set([
  "global",
  "modelServer.resources",
  "modelServer.securityContext",
  "modelServer.startupProbe",
  "modelServer.readinessProbe",
  "modelServer.livenessProbe",
  "gateway.resources",
  "gateway.securityContext",
  "redis.bundled.resources",
  "redis.bundled.podSecurityContext",
  "redis.bundled.securityContext",
  "redis.bundled.affinity",
  "podSecurityContext",
  "affinity",
  "updateStrategy",
  "autoscaling.behavior",
  "networkPolicy.ingressController.namespaceSelector",
  "networkPolicy.ingressController.podSelector",
  "networkPolicy.prometheus.namespaceSelector",
  "networkPolicy.prometheus.podSelector",
  // items of lists of Kubernetes objects (EnvVar, Volume, Toleration, NetworkPolicyPeer, ...)
  ...[
    "modelServer.env",
    "modelServer.envFrom",
    "modelServer.volumeMounts",
    "modelServer.volumes",
    "gateway.env",
    "gateway.envFrom",
    "gateway.extraVolumes",
    "gateway.extraVolumeMounts",
    "redis.bundled.tolerations",
    "tolerations",
    "topologySpreadConstraints",
    "networkPolicy.publicPeers",
    "networkPolicy.adminPeers",
    "networkPolicy.egress",
    "serviceMonitor.relabelings",
    "serviceMonitor.metricRelabelings",
  ].map((list) => `${list}.[]`),
]);

/** Every object schema, with its dotted path ([] for list items, * for map values). */
function objectSchemas(schema: JsonSchema, path: string[] = []): Array<{ path: string; node: JsonSchema }> {
  const found: Array<{ path: string; node: JsonSchema }> = [];
  const types = ([] as unknown[]).concat(schema.type);
  if (types.includes("object")) found.push({ path: path.join("."), node: schema });
  for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    found.push(...objectSchemas(child, [...path, key]));
  }
  if (schema.items) found.push(...objectSchemas(schema.items, [...path, "[]"]));
  if (typeof schema.additionalProperties === "object") {
    found.push(...objectSchemas(schema.additionalProperties, [...path, "*"]));
  }
  return found;
}

describe("values.schema.json", () => {
  it("accepts the chart's default values.yaml", () => {
    const validate = validator();
    const valid = validate(defaultValues());
    expect(describeErrors(validate.errors)).toBe("");
    expect(valid).toBe(true);
  });

  it.each(ciScenarios())("accepts ci/%s merged over values.yaml", (scenario) => {
    const validate = validator();
    const valid = validate(valuesWith(`${CHART_DIR}ci/${scenario}`));
    expect(describeErrors(validate.errors)).toBe("");
    expect(valid).toBe(true);
  });

  it("has the ci scenarios the chart documents", () => {
    expect(ciScenarios()).toEqual(
      expect.arrayContaining([
        "sidecar-values.yaml",
        "standalone-values.yaml",
        "cluster-values.yaml",
        "sentinel-values.yaml",
        "observability-values.yaml",
        "gateway-tls-values.yaml",
      ]),
    );
  });

  it("closes every object that lists its properties, and leaves open only the known free-form maps", () => {
    const open: string[] = [];
    for (const { path, node } of objectSchemas(valuesSchema())) {
      if (node.properties) {
        expect(node.additionalProperties, `${path || "(top level)"} must refuse unknown keys`).toBe(false);
      } else if (node.additionalProperties === undefined) {
        open.push(path);
      }
    }
    expect(open.sort()).toEqual([...FREE_FORM].sort());
  });

  it("describes every field", () => {
    const undescribed: string[] = [];
    const walk = (node: JsonSchema, path: string[]) => {
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
        if (typeof child.description !== "string" || child.description.length < 5) {
          undescribed.push([...path, key].join("."));
        }
        walk(child, [...path, key]);
      }
      if (node.items) walk(node.items, [...path, "[]"]);
      if (typeof node.additionalProperties === "object") walk(node.additionalProperties, [...path, "*"]);
    };
    walk(valuesSchema(), []);
    expect(undescribed).toEqual([]);
  });

  it("uses only regular expressions that Go's RE2 (Helm's validator) also understands", () => {
    const patterns = JSON.stringify(valuesSchema()).match(/"pattern":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(patterns.length).toBeGreaterThan(10);
    for (const pattern of patterns) {
      // no lookaround and no backreferences: RE2 has neither
      expect(pattern, pattern).not.toMatch(/\(\?[=!<]|\\\\[1-9]/);
    }
  });

  it("is draft-07, which every Helm 3 release validates", () => {
    expect(valuesSchema().$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("validates the example values with the same merge Helm uses (lists replace, maps merge)", () => {
    const merged = helmMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: null, e: { f: true } });
    expect(merged).toEqual({ a: { b: 1, c: [3] }, e: { f: true } });
  });
});

describe("bad values examples", () => {
  it("exist in number", () => {
    expect(badExamples().length).toBeGreaterThanOrEqual(15);
  });

  it.each(badExamples())("refuses %s for the stated reason", (example) => {
    const path = `${BAD_VALUES_DIR}${example}`;
    const expectation = /^# expect: (\S+) (\S+)(?: (\S+))?$/m;
    const text = readFileSync(path, "utf8");
    expect(text, `${example} states its expected error as "# expect: <keyword> <path> [<param>]"`).toMatch(
      expectation,
    );
    const header = expectation.exec(text);
    const [, keyword, where, param] = header as RegExpExecArray;
    const instancePath = where === "/" ? "" : where;

    const validate = validator();
    const values = helmMerge(defaultValues(), readYamlFile(path));
    expect(validate(values)).toBe(false);
    const matching = (validate.errors ?? []).filter(
      (e) =>
        e.keyword === keyword &&
        e.instancePath === instancePath &&
        (param === undefined || Object.values(e.params).includes(param)),
    );
    expect(matching, describeErrors(validate.errors)).not.toHaveLength(0);
  });
});
