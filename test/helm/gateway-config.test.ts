import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ENV_SETTINGS } from "../../src/config/env.js";
import { configSchema } from "../../src/config/schema.js";
import {
  CHART_DIR,
  chartFile,
  ciScenarios,
  type JsonSchema,
  TLS_DIR,
  type Values,
  valuesSchema,
} from "./chart.js";
import { FULLNAME, manifest, type RenderOptions, renderChart, renderFailure } from "./helm.js";

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

const ci = (name: string) => `${CHART_DIR}ci/${name}`;

/** config.yaml of the ConfigMap `helm template` renders for these values. */
function renderedGatewayConfig(options: RenderOptions = {}): Values {
  const configMap = manifest(renderChart(options), "ConfigMap", FULLNAME);
  return parseYaml(configMap.data["config.yaml"]) as Values;
}

const scenarios: Array<[string, RenderOptions]> = [
  ["values.yaml", {}],
  ...ciScenarios().map((name): [string, RenderOptions] => [`ci/${name}`, { valuesFiles: [ci(name)] }]),
];

describe("the gateway configuration the ConfigMap renders", () => {
  it.each(scenarios)("is accepted by the gateway's own schema for %s", (_name, options) => {
    const result = parse(renderedGatewayConfig(options));
    expect(result.issues).toBe("");
    expect(result.success).toBe(true);
  });

  it("listens on all interfaces, forwards to the model server on loopback in sidecar mode", () => {
    const { data } = parse(renderedGatewayConfig());
    expect(data?.listen).toEqual({ host: "0.0.0.0", port: 8080 });
    expect(data?.metrics).toMatchObject({ host: "0.0.0.0", port: 9464 });
    expect(data?.upstream.url).toBe("http://127.0.0.1:8000");
    expect(data?.security.requireHttps).toBe(true);
    expect(data?.security.trustedProxies).toEqual(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]);
  });

  it("forwards to upstream.url in standalone mode and points Redis at the external URL", () => {
    const { data } = parse(renderedGatewayConfig({ valuesFiles: [ci("standalone-values.yaml")] }));
    expect(data?.upstream.url).toBe("http://vllm.inference.svc:8000");
    expect(data?.redis.url).toBe("rediss://redis.data.svc:6380");
    expect(data?.admin).toEqual({ host: "0.0.0.0", port: 8081 });
  });

  it("connects to the bundled Redis by its Service name", () => {
    const { data } = parse(renderedGatewayConfig({ valuesFiles: [ci("sidecar-values.yaml")] }));
    expect(data?.redis.url).toBe("redis://t-tunnel-gateway-redis:6379");
    expect(data?.redis.cluster).toBeUndefined();
  });

  it("names the bundled Redis' Service the way its URL does, however long the release's name", () => {
    const fullname = `${"a".repeat(44)}-tunnel-gateway`;
    const manifests = renderChart({
      valuesFiles: [ci("sidecar-values.yaml")],
      set: [`fullnameOverride=${fullname}`],
    });
    const config = parseYaml(manifest(manifests, "ConfigMap", fullname).data["config.yaml"]) as Values;
    const host = new URL(config.redis.url).hostname;
    expect(host).toBe(`${"a".repeat(44)}-t-redis`);
    expect(manifest(manifests, "Service", host).spec.clusterIP).toBe("None");
  });

  it("uses Redis Cluster and Sentinel when their lists are set", () => {
    const cluster = parse(renderedGatewayConfig({ valuesFiles: [ci("cluster-values.yaml")] })).data;
    expect(cluster?.redis.cluster?.nodes).toHaveLength(3);
    const sentinel = parse(renderedGatewayConfig({ valuesFiles: [ci("sentinel-values.yaml")] })).data;
    expect(sentinel?.redis.sentinel).toMatchObject({ name: "mymaster" });
  });

  it("points tls at the mounted Secret with gatewayTls", () => {
    const manifests = renderChart({ valuesFiles: [ci("gateway-tls-values.yaml")] });
    const config = parseYaml(manifest(manifests, "ConfigMap", FULLNAME).data["config.yaml"]) as Values;
    expect(parse(config).data?.tls).toEqual({
      certFile: `${TLS_DIR}/tls.crt`,
      keyFile: `${TLS_DIR}/tls.key`,
    });
    const gateway = manifest(manifests, "Deployment", FULLNAME).spec.template.spec.containers.find(
      (c: { name: string }) => c.name === "gateway",
    );
    expect(gateway.volumeMounts).toContainEqual(
      expect.objectContaining({ mountPath: TLS_DIR, readOnly: true }),
    );
  });

  it("computes the listeners, upstream, Redis, admin and TLS settings, merged over .Values.config", () => {
    const config = renderedGatewayConfig({
      valuesFiles: [ci("observability-values.yaml")],
      set: [
        "gatewayTls.enabled=true",
        "gatewayTls.existingSecret=tls",
        "gateway.ports.http=9000",
        "modelServer.port=8001",
        "config.metrics.perKey=false",
      ],
    });
    expect(config).toMatchObject({
      listen: { host: "0.0.0.0", port: 9000 },
      upstream: { url: "http://127.0.0.1:8001" },
      metrics: { host: "0.0.0.0", port: 9464 },
      admin: { host: "0.0.0.0", port: 8081 },
      redis: { url: "redis://t-tunnel-gateway-redis:6379" },
      tls: { certFile: `${TLS_DIR}/tls.crt`, keyFile: `${TLS_DIR}/tls.key` },
    });
    // merged, not replaced: the chart's metrics host and port sit beside the values' own metrics settings
    expect(config.metrics).toMatchObject({ enabled: true, perKey: false });
    expect(config.redis.prefix).toBe("tg:");
    // every setting the template computes is one of these
    const template = chartFile("templates/configmap.yaml");
    const inTemplate = new Set<string>();
    for (const match of template.matchAll(/set \$computed "(\w+)"|\$computed := dict "(\w+)"/g)) {
      inTemplate.add((match[1] ?? match[2]) as string);
    }
    expect([...inTemplate].sort()).toEqual(["admin", "listen", "metrics", "redis", "tls", "upstream"]);
  });

  it("refuses standalone mode without upstream.url, and an external Redis without its URL", () => {
    expect(renderFailure({ set: ["mode=standalone"] })).toContain(
      "upstream.url is required in standalone mode",
    );
    expect(renderFailure({ set: ["redis.external.url="] })).toContain("redis.external.url is required");
  });

  it("refuses a model server's places shared across replicas in sidecar mode, where each pod has its own", () => {
    expect(
      renderFailure({ set: ["config.upstream.maxInFlight=8", "config.upstream.sharedInFlight=true"] }),
    ).toContain("config.upstream.sharedInFlight is for one model server behind several gateway replicas");
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
        !NOT_OFFERED_BY_THE_CHART.some((prefix) => path === prefix || path.startsWith(`${prefix}.`)) &&
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

  it("pass each identity provider's client secret from its Secret as a variable or a file, never through config.yaml", () => {
    const manifests = renderChart({ valuesFiles: [ci("sign-in-values.yaml")] });
    const config = parseYaml(manifest(manifests, "ConfigMap", FULLNAME).data["config.yaml"]) as Values;
    expect(parse(config).success).toBe(true);
    expect(config.admin).toEqual({ host: "0.0.0.0", port: 8081, externalUrl: "https://gateway.example.com" });
    const [keycloak, entra] = config.signIn.providers;
    expect(keycloak.clientSecretEnv).toBe("OIDC_CLIENT_SECRET_KEYCLOAK");
    expect(entra.clientSecretFile).toBe("/etc/tunnel-gateway/oidc/entra/client-secret");
    const spec = manifest(manifests, "Deployment", FULLNAME).spec.template.spec;
    const gateway = spec.containers.find((c: { name: string }) => c.name === "gateway");
    expect(gateway.env).toContainEqual({
      name: "OIDC_CLIENT_SECRET_KEYCLOAK",
      valueFrom: { secretKeyRef: { name: "oidc-keycloak", key: "client-secret" } },
    });
    expect(gateway.volumeMounts).toContainEqual({
      name: "oidc-entra",
      mountPath: "/etc/tunnel-gateway/oidc/entra",
      readOnly: true,
    });
    expect(spec.volumes).toContainEqual({
      name: "oidc-entra",
      secret: { secretName: "oidc-entra", items: [{ key: "client-secret", path: "client-secret" }] },
    });
    // People sign in: the legacy admin token is optional, and the chart's Secret need not hold one.
    const adminToken = gateway.env.find((e: { name: string }) => e.name === "TUNNEL_ADMIN_TOKEN");
    expect(adminToken.valueFrom.secretKeyRef.optional).toBe(true);
    // The dashboard and /auth/ behind their own Ingress, with TLS, at the external URL's host.
    const ingress = manifest(manifests, "Ingress", `${FULLNAME}-admin`);
    expect(ingress.spec.tls).toEqual([{ secretName: "gateway-admin-tls", hosts: ["gateway.example.com"] }]);
    expect(ingress.spec.rules[0].host).toBe("gateway.example.com");
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({
      name: `${FULLNAME}-internal`,
      port: { name: "admin" },
    });
  });

  it("refuses a client secret for a provider it does not know, and an admin Ingress without the external URL", () => {
    expect(
      renderFailure({
        set: [
          "oidcClientSecrets[0].provider=ghost",
          "oidcClientSecrets[0].secretName=s",
          "oidcClientSecrets[0].key=k",
          "oidcClientSecrets[0].mount=env",
        ],
      }),
    ).toContain('oidcClientSecrets names the provider "ghost"');
    expect(
      renderFailure({
        set: [
          "admin.enabled=true",
          "secrets.adminToken=admin-token-0123456789",
          "admin.ingress.enabled=true",
        ],
      }),
    ).toContain("admin.ingress.enabled needs admin.externalUrl");
    expect(renderFailure({ set: ["admin.enabled=true"] })).toContain("admin.enabled needs a way to sign in");
  });

  it("keep config.yaml free of secrets", () => {
    const configMap = manifest(
      renderChart({ valuesFiles: [ci("observability-values.yaml")] }),
      "ConfigMap",
      FULLNAME,
    );
    const config = parseYaml(configMap.data["config.yaml"]) as Values;
    expect(config.admin?.token).toBeUndefined();
    expect(config.metrics?.token).toBeUndefined();
    expect(config.redis?.password).toBeUndefined();
    for (const secret of [
      "observability-admin-token",
      "observability-metrics-token",
      "observability-redis-password",
    ]) {
      expect(JSON.stringify(configMap)).not.toContain(secret);
    }
  });
});
