import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ENV_SETTINGS } from "../../src/config/env.js";
import { configSchema } from "../../src/config/schema.js";
import {
  CHART_DIR,
  chartFile,
  ciScenarios,
  computedSettings,
  defaultValues,
  type JsonSchema,
  renderedGatewayConfig,
  TLS_DIR,
  type Values,
  valuesSchema,
  valuesWith,
} from "./chart.js";

/**
 * Gateway settings the chart never takes from .Values.config: it derives them (listeners, upstream URL, Redis
 * connection, TLS files) or passes them as TUNNEL_* variables from the Secret.
 */
const SET_BY_THE_CHART = [
  "listen",
  "upstream.url",
  "upstream.apiKey",
  "tls",
  "redis.url",
  "redis.username",
  "redis.password",
  "redis.cluster",
  "redis.sentinel",
  "metrics.host",
  "metrics.port",
  "metrics.token",
  "admin",
];

/**
 * Gateway settings the chart does not offer: its own Redis persists (appendonly yes), and a production chart
 * has no business switching off the gateway's refusal of a Redis that persists nothing.
 */
const NOT_OFFERED_BY_THE_CHART = ["redis.allowNoPersistence"];

/** Dotted paths of the leaf settings of a JSON schema (maps of free keys are leaves). */
function settingPaths(schema: JsonSchema, path: string[] = []): string[] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return [path.join(".")];
  return Object.entries(properties).flatMap(([key, child]) => settingPaths(child, [...path, key]));
}

function gatewayJsonSchema(): JsonSchema {
  return z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

function parse(config: Values) {
  const result = configSchema.safeParse(structuredClone(config));
  return {
    success: result.success,
    issues: result.success ? "" : JSON.stringify(result.error.issues),
    data: result.data,
  };
}

const scenarios: Array<[string, () => Values]> = [
  ["values.yaml", defaultValues],
  ...ciScenarios().map((name): [string, () => Values] => [
    `ci/${name}`,
    () => valuesWith(`${CHART_DIR}ci/${name}`),
  ]),
];

describe("the gateway configuration the ConfigMap renders", () => {
  it.each(scenarios)("is accepted by the gateway's own schema for %s", (_name, load) => {
    const result = parse(renderedGatewayConfig(load()));
    expect(result.issues).toBe("");
    expect(result.success).toBe(true);
  });

  it("listens on all interfaces, forwards to the model server on loopback in sidecar mode", () => {
    const { data } = parse(renderedGatewayConfig(defaultValues()));
    expect(data?.listen).toEqual({ host: "0.0.0.0", port: 8080 });
    expect(data?.metrics).toMatchObject({ host: "0.0.0.0", port: 9464 });
    expect(data?.upstream.url).toBe("http://127.0.0.1:8000");
    expect(data?.security.requireHttps).toBe(true);
    expect(data?.security.trustedProxies).toEqual(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]);
  });

  it("forwards to upstream.url in standalone mode and points Redis at the external URL", () => {
    const { data } = parse(renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/standalone-values.yaml`)));
    expect(data?.upstream.url).toBe("http://vllm.inference.svc:8000");
    expect(data?.redis.url).toBe("rediss://redis.data.svc:6380");
    expect(data?.admin).toEqual({ host: "0.0.0.0", port: 8081 });
  });

  it("connects to the bundled Redis by its Service name", () => {
    const { data } = parse(renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/sidecar-values.yaml`)));
    expect(data?.redis.url).toBe("redis://t-tunnel-gateway-redis:6379");
    expect(data?.redis.cluster).toBeUndefined();
  });

  it("uses Redis Cluster and Sentinel when their lists are set", () => {
    const cluster = parse(renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/cluster-values.yaml`))).data;
    expect(cluster?.redis.cluster?.nodes).toHaveLength(3);
    const sentinel = parse(renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/sentinel-values.yaml`))).data;
    expect(sentinel?.redis.sentinel).toMatchObject({ name: "mymaster" });
  });

  it("points tls at the mounted Secret with gatewayTls", () => {
    const { data } = parse(renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/gateway-tls-values.yaml`)));
    expect(data?.tls).toEqual({ certFile: `${TLS_DIR}/tls.crt`, keyFile: `${TLS_DIR}/tls.key` });
    expect(chartFile("templates/deployment.yaml")).toContain(`mountPath: ${TLS_DIR}\n`);
  });

  it("mirrors the keys templates/configmap.yaml computes", () => {
    const template = chartFile("templates/configmap.yaml");
    const inTemplate = new Set<string>();
    for (const match of template.matchAll(/set \$computed "(\w+)"|\$computed := dict "(\w+)"/g)) {
      inTemplate.add((match[1] ?? match[2]) as string);
    }
    const everything = valuesWith(`${CHART_DIR}ci/observability-values.yaml`);
    everything.gatewayTls = { enabled: true, existingSecret: "tls" };
    expect([...inTemplate].sort()).toEqual(Object.keys(computedSettings(everything)).sort());
    expect(template).toContain("mergeOverwrite (deepCopy .Values.config) $computed");
    expect(template).toContain(
      '"certFile" "/etc/tunnel-gateway/tls/tls.crt" "keyFile" "/etc/tunnel-gateway/tls/tls.key"',
    );
  });

  it("mirrors the values templates/configmap.yaml computes, expression by expression", () => {
    // computedSettings() is this test's reading of the template (no helm binary here): each value it
    // computes must stand in the template as the expression it was read from.
    const template = chartFile("templates/configmap.yaml");
    for (const expression of [
      '$computed := dict "listen" (dict "host" "0.0.0.0" "port" (int .Values.gateway.ports.http))',
      'set $computed "metrics" (dict "host" "0.0.0.0" "port" (int .Values.gateway.ports.metrics))',
      'set $computed "admin" (dict "host" "0.0.0.0" "port" (int .Values.gateway.ports.admin))',
      'set $computed "upstream" (dict "url" $upstreamUrl)',
      '$upstreamUrl = printf "http://127.0.0.1:%d" (int .Values.modelServer.port)',
      '$upstreamUrl = required "upstream.url is required in standalone mode',
      'set $redis "url" (printf "redis://%s-redis:%d" ($fullname | trunc 46 | trimSuffix "-") (int .Values.redis.bundled.port))',
      'set $redis "cluster" (dict "nodes" $external.cluster.nodes)',
      'set $redis "sentinel" (dict "sentinels" $external.sentinel.sentinels "name"',
      'set $redis "url" (required "redis.external.url is required',
    ]) {
      expect(template, expression).toContain(expression);
    }
  });
});

describe("the chart's config values and the gateway's settings", () => {
  it("declare only settings the gateway knows (values.schema.json's config section)", () => {
    const gatewaySettings = new Set(settingPaths(gatewayJsonSchema()));
    const chartSettings = settingPaths(valuesSchema().properties.config);
    expect(chartSettings.length).toBeGreaterThan(25);
    expect(chartSettings.filter((path) => !gatewaySettings.has(path))).toEqual([]);
  });

  it("cover every gateway setting, except those the chart sets itself", () => {
    const chartSettings = new Set(settingPaths(valuesSchema().properties.config));
    const missing = settingPaths(gatewayJsonSchema()).filter(
      (path) =>
        !chartSettings.has(path) &&
        !NOT_OFFERED_BY_THE_CHART.includes(path) &&
        !SET_BY_THE_CHART.some((prefix) => path === prefix || path.startsWith(`${prefix}.`)),
    );
    expect(missing).toEqual([]);
  });

  it("pass every secret as a TUNNEL_* variable the gateway reads", () => {
    const deployment = chartFile("templates/deployment.yaml");
    const known = new Set([...ENV_SETTINGS.map((s) => s.variable), "TUNNEL_CONFIG"]);
    const set = [...deployment.matchAll(/- name: (TUNNEL_\w+)/g)].map((m) => m[1] as string);
    expect(set.filter((variable) => !known.has(variable))).toEqual([]);
    expect(set).toEqual(
      expect.arrayContaining([
        "TUNNEL_CONFIG",
        "TUNNEL_ADMIN_TOKEN",
        "TUNNEL_METRICS_TOKEN",
        "TUNNEL_UPSTREAM_API_KEY",
        "TUNNEL_REDIS_URL",
        "TUNNEL_REDIS_USERNAME",
        "TUNNEL_REDIS_PASSWORD",
        "TUNNEL_REDIS_SENTINEL_PASSWORD",
      ]),
    );
  });

  it("keep config.yaml free of secrets", () => {
    const config = renderedGatewayConfig(valuesWith(`${CHART_DIR}ci/observability-values.yaml`));
    expect(config.admin?.token).toBeUndefined();
    expect(config.metrics?.token).toBeUndefined();
    expect(config.redis?.password).toBeUndefined();
    expect(JSON.stringify(config)).not.toContain("observability-admin-token");
  });
});
