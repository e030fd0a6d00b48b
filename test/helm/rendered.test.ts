// The chart through the real helm: `helm lint --strict` and `helm template` on the defaults and every
// ci/*-values.yaml, each rendered manifest against the Kubernetes schemas, and the `helm test` connection Pod.

import { describe, expect, it } from "vitest";
import { CHART_DIR, ciScenarios, templates } from "./chart.js";
import {
  FULLNAME,
  helm,
  type Manifest,
  manifest,
  type RenderOptions,
  renderChart,
  renderFailure,
} from "./helm.js";
import { schemaErrors } from "./kubernetes-schemas.js";

const SCENARIOS: Array<[string, string[]]> = [
  ["values.yaml", []],
  ...ciScenarios().map((name): [string, string[]] => [`ci/${name}`, [`${CHART_DIR}ci/${name}`]]),
];

const rendered = new Map<string, Manifest[]>();
/** A scenario's manifests, rendered once for all the tests that read them. */
function scenario(name: string): Manifest[] {
  const files = SCENARIOS.find(([scenarioName]) => scenarioName === name)?.[1];
  if (!files) throw new Error(`no scenario ${name}`);
  if (!rendered.has(name)) rendered.set(name, renderChart({ valuesFiles: files }));
  return rendered.get(name) as Manifest[];
}

function matches(labels: Record<string, string> | undefined, selector: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

describe("helm lint --strict", () => {
  it.each(SCENARIOS)("passes with %s", (_name, files) => {
    const run = helm(["lint", "--strict", CHART_DIR, ...files.flatMap((file) => ["-f", file])]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(run.status).toBe(0);
  });

  it("fails on what the values schema refuses, so a pass means something", () => {
    const run = helm(["lint", "--strict", CHART_DIR, "--set", "mode=sidecars"]);
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/mode.*sidecar/);
  });
});

describe("helm template", () => {
  it.each(SCENARIOS)("renders %s into manifests the Kubernetes schemas accept", (name) => {
    const manifests = scenario(name);
    expect(manifests.length).toBeGreaterThanOrEqual(6);
    const refused = manifests
      .map((m) => ({ manifest: `${m.source}: ${m.kind} ${m.metadata.name}`, errors: schemaErrors(m) }))
      .filter((result) => result.errors !== "");
    expect(refused).toEqual([]);
    for (const m of manifests) expect(m.metadata.name, m.source).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it("renders every template in at least one scenario, so that each meets its schema", () => {
    const sources = new Set(SCENARIOS.flatMap(([name]) => scenario(name).map((m) => m.source)));
    const manifestTemplates = templates()
      .filter((t) => t.name.endsWith(".yaml"))
      .map((t) => `templates/${t.name}`);
    expect(manifestTemplates.filter((template) => !sources.has(template))).toEqual([]);
  });

  it("renders the monitoring CRDs, validated by prometheus-operator's schemas", () => {
    const kinds = scenario("ci/observability-values.yaml").map((m) => `${m.apiVersion} ${m.kind}`);
    expect(kinds).toContain("monitoring.coreos.com/v1 ServiceMonitor");
    expect(kinds).toContain("monitoring.coreos.com/v1 PrometheusRule");
  });

  it("is checked by schemas that refuse what the API server would", () => {
    const deployment = structuredClone(manifest(scenario("values.yaml"), "Deployment", FULLNAME));
    expect(schemaErrors(deployment)).toBe("");
    deployment.spec.replicas = "two";
    expect(schemaErrors(deployment)).toMatch(/spec\/replicas must be integer/);

    const monitor = structuredClone(
      manifest(scenario("ci/observability-values.yaml"), "ServiceMonitor", FULLNAME),
    );
    monitor.spec.endpoints[0].interval = 15;
    expect(schemaErrors(monitor)).toMatch(/endpoints\/0\/interval must be string/);

    expect(schemaErrors({ apiVersion: "example.com/v1", kind: "Widget" })).toMatch(
      /no schema for example\.com\/v1 Widget/,
    );
  });
});

describe("the connection test of `helm test`", () => {
  const TEST_POD = `${FULLNAME}-test-connection`;

  it("is a test hook Pod that curls /healthz on the public Service, failing on anything but success", () => {
    const manifests = scenario("values.yaml");
    const pod = manifest(manifests, "Pod", TEST_POD);
    expect(pod.source).toBe("templates/tests/test-connection.yaml");
    expect(pod.metadata.annotations?.["helm.sh/hook"]).toBe("test");
    expect(pod.spec.restartPolicy).toBe("Never");
    const service = manifest(manifests, "Service", FULLNAME);
    const [container] = pod.spec.containers;
    expect(container.command).toEqual(["curl"]);
    expect(container.args).toContain("--fail");
    expect(container.args).not.toContain("--insecure");
    expect(container.args.at(-1)).toBe(
      `http://${service.metadata.name}:${service.spec.ports[0].port}/healthz`,
    );
  });

  it("speaks HTTPS to a gateway serving TLS, without verifying the public host's certificate", () => {
    const manifests = scenario("ci/gateway-tls-values.yaml");
    const container = manifest(manifests, "Pod", TEST_POD).spec.containers[0];
    const port = manifest(manifests, "Service", FULLNAME).spec.ports[0].port;
    expect(port).toBe(443);
    expect(container.args.at(-1)).toBe(`https://${FULLNAME}:443/healthz`);
    expect(container.args).toContain("--insecure");
  });

  it("runs restricted: as a non-root user, read-only, without capabilities or an API token", () => {
    const pod = manifest(scenario("values.yaml"), "Pod", TEST_POD);
    expect(pod.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(pod.spec.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
  });

  it("is admitted to the public port by the NetworkPolicy, and is not one of the Service's endpoints", () => {
    const manifests = scenario("ci/observability-values.yaml");
    const pod = manifest(manifests, "Pod", TEST_POD);
    const policy = manifest(manifests, "NetworkPolicy", FULLNAME);
    const publicRule = policy.spec.ingress.find((rule: any) => rule.ports[0].port === "http");
    expect(
      publicRule.from.some(
        (peer: any) =>
          !peer.namespaceSelector && matches(pod.metadata.labels, peer.podSelector?.matchLabels ?? {}),
      ),
    ).toBe(true);
    expect(matches(pod.metadata.labels, manifest(manifests, "Service", FULLNAME).spec.selector)).toBe(false);
  });

  it("is left out, and out of the NetworkPolicy, with tests.enabled off", () => {
    const manifests = renderChart({
      valuesFiles: [`${CHART_DIR}ci/observability-values.yaml`],
      set: ["tests.enabled=false"],
    });
    expect(manifests.filter((m) => m.kind === "Pod")).toEqual([]);
    const policy = manifest(manifests, "NetworkPolicy", FULLNAME);
    expect(JSON.stringify(policy)).not.toContain('"app.kubernetes.io/component":"test"');
  });
});

describe("opentelemetry", () => {
  const gatewayEnv = (options: RenderOptions) => {
    const deployment = manifest(renderChart(options), "Deployment", FULLNAME);
    const containers = deployment.spec.template.spec.containers as {
      name: string;
      env: Record<string, any>[];
    }[];
    const gateway = containers.find((container) => container.name === "gateway") ?? containers[0];
    return (gateway?.env ?? []).filter((entry) => String(entry.name).startsWith("OTEL_"));
  };

  it("sets no OTEL_* variable while off", () => {
    expect(gatewayEnv({})).toEqual([]);
  });

  it("passes the endpoint, protocol, signals and sampler as the standard variables, the headers from the Secret", () => {
    expect(gatewayEnv({ valuesFiles: [`${CHART_DIR}ci/observability-values.yaml`] })).toEqual([
      { name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.observability:4318" },
      { name: "OTEL_EXPORTER_OTLP_PROTOCOL", value: "http/protobuf" },
      { name: "OTEL_TRACES_EXPORTER", value: "otlp" },
      { name: "OTEL_METRICS_EXPORTER", value: "otlp" },
      { name: "OTEL_TRACES_SAMPLER", value: "parentbased_traceidratio" },
      { name: "OTEL_TRACES_SAMPLER_ARG", value: "0.1" },
      {
        name: "OTEL_EXPORTER_OTLP_HEADERS",
        valueFrom: { secretKeyRef: { name: "otlp-credentials", key: "otlp-headers" } },
      },
    ]);
  });

  it("refuses to be enabled without an endpoint", () => {
    expect(renderFailure({ set: ["opentelemetry.enabled=true"] })).toMatch(/endpoint/);
  });
});
