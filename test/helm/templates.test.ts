import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  actions,
  CHART_DIR,
  chartFile,
  ciScenarios,
  defaultValues,
  leafValues,
  readYamlFile,
  templates,
  valueAt,
  valuesReferences,
  valuesSchema,
} from "./chart.js";

const HELPERS = [
  "tunnel-gateway.name",
  "tunnel-gateway.fullname",
  "tunnel-gateway.chart",
  "tunnel-gateway.labels",
  "tunnel-gateway.selectorLabels",
  "tunnel-gateway.serviceAccountName",
];

/**
 * Templates rendered on every install, and the condition of those rendered by default: two depend on a
 * non-`enabled` value, and the `helm test` Pod, which only `helm test` creates, is on by default.
 */
const ALWAYS = ["configmap.yaml", "deployment.yaml", "service.yaml", "service-internal.yaml"];
const CONDITIONAL = new Map([
  ["secret.yaml", "not .Values.secrets.existingSecret"],
  ["serviceaccount.yaml", ".Values.serviceAccount.create"],
  ["tests/test-connection.yaml", ".Values.tests.enabled"],
]);

const manifests = templates().filter((t) => t.name.endsWith(".yaml"));

function opening(body: string): string | undefined {
  return /^(if|range|with|define|block)\b/.exec(body)?.[1];
}

describe("template syntax", () => {
  it("holds only templates Helm renders: *.yaml, _*.tpl, NOTES.txt and the test hooks in tests/", () => {
    for (const { name } of templates()) {
      expect(name).toMatch(/^(?:(?:tests\/)?[a-z-]+\.yaml|_[a-z]+\.tpl|NOTES\.txt)$/);
    }
    expect(templates().map((t) => t.name)).toEqual(
      expect.arrayContaining(["_helpers.tpl", "NOTES.txt", ...ALWAYS]),
    );
  });

  it.each(templates().map((t) => [t.name, t.text]))(
    "%s has balanced delimiters and blocks",
    (_name, text) => {
      const withoutActions = text.replace(/\{\{(-\s)?[\s\S]*?(\s-)?\}\}/g, "");
      expect(withoutActions).not.toContain("{{");
      expect(withoutActions).not.toContain("}}");
      // "{{-3}}" would be the number -3: trim markers need a space next to them
      expect(text).not.toMatch(/\{\{-[^\s]/);
      expect(text).not.toMatch(/[^\s]-\}\}/);

      const open: Array<{ keyword: string; line: number }> = [];
      for (const action of actions(text)) {
        if (action.body.startsWith("/*")) {
          expect(action.body.endsWith("*/"), `comment at line ${action.line}`).toBe(true);
          continue;
        }
        const keyword = opening(action.body);
        if (keyword) open.push({ keyword, line: action.line });
        else if (/^else\b/.test(action.body))
          expect(open.length, `else at line ${action.line}`).toBeGreaterThan(0);
        else if (action.body === "end") {
          expect(open.length, `end at line ${action.line} closes nothing`).toBeGreaterThan(0);
          open.pop();
        }
      }
      expect(open).toEqual([]);
    },
  );

  it("has no tabs in any YAML file of the chart", () => {
    const files = [
      "Chart.yaml",
      "values.yaml",
      ...ciScenarios().map((n) => `ci/${n}`),
      ...manifests.map((t) => `templates/${t.name}`),
    ];
    for (const file of files) expect(chartFile(file), file).not.toContain("\t");
  });

  it("includes only templates that _helpers.tpl defines", () => {
    const defined = new Set(
      [...chartFile("templates/_helpers.tpl").matchAll(/define "([^"]+)"/g)].map((m) => m[1]),
    );
    for (const { name, text } of templates()) {
      for (const match of text.matchAll(/include "([^"]+)"/g)) {
        expect(defined.has(match[1]), `${name} includes ${match[1]}`).toBe(true);
      }
    }
  });
});

describe("_helpers.tpl", () => {
  const helpers = chartFile("templates/_helpers.tpl");

  it("defines exactly the naming and label helpers", () => {
    const defined = [...helpers.matchAll(/\{\{-? define "([^"]+)" -?\}\}/g)].map((m) => m[1]);
    expect(defined).toEqual(HELPERS);
  });

  it("gives each helper a doc comment", () => {
    for (const helper of HELPERS) {
      expect(helpers, helper).toMatch(
        new RegExp(`\\*/\\}\\}\\n\\{\\{- define "${helper.replace(".", "\\.")}"`),
      );
    }
  });

  it("truncates the full name to 63 characters", () => {
    const fullname = /define "tunnel-gateway\.fullname"[\s\S]*?\n\{\{- end \}\}/.exec(helpers)?.[0] ?? "";
    expect(fullname.match(/trunc 63 \| trimSuffix "-"/g)).toHaveLength(3);
  });
});

describe("templates and values.yaml", () => {
  const values = defaultValues();

  it("read only values that values.yaml defines", () => {
    const missing: string[] = [];
    for (const { name, text } of templates()) {
      for (const path of valuesReferences(text)) {
        if (valueAt(values, path) === undefined) missing.push(`${name}: .Values.${path.join(".")}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("use every value of values.yaml", () => {
    const read = templates().flatMap(({ text }) => valuesReferences(text).map((p) => p.join(".")));
    const unused = leafValues(values, valuesSchema())
      .map((leaf) => leaf.path)
      .filter((leaf) => !read.some((path) => leaf === path || leaf.startsWith(`${path}.`)));
    expect(unused).toEqual([]);
  });

  it("begin values.yaml with the schema comment for editors", () => {
    expect(chartFile("values.yaml").split("\n")[0]).toBe(
      "# yaml-language-server: $schema=values.schema.json",
    );
  });

  it("comment every value in values.yaml", () => {
    const lines = chartFile("values.yaml").split("\n");
    const uncommented: string[] = [];
    const stack: Array<{ indent: number; key: string }> = [];
    lines.forEach((line, index) => {
      const match = /^(\s*)([\w./-]+):/.exec(line);
      if (!match) return;
      const indent = (match[1] as string).length;
      while (stack.length && (stack.at(-1) as { indent: number }).indent >= indent) stack.pop();
      const parents = stack.map((s) => s.key);
      stack.push({ indent, key: match[2] as string });
      // keys inside free-form Kubernetes maps (resources, securityContext, selectors) are documented by their parent
      const parentSchema = parents.reduce<any>((node, key) => node?.properties?.[key], valuesSchema());
      if (parents.length > 0 && !parentSchema?.properties) return;
      const above = lines[index - 1] ?? "";
      if (!/^\s*#/.test(above)) uncommented.push(`${index + 1}: ${line.trim()}`);
    });
    expect(uncommented).toEqual([]);
  });
});

describe("optional resources", () => {
  const optional = manifests.filter((t) => !ALWAYS.includes(t.name) && !CONDITIONAL.has(t.name));

  it("are the ones the chart documents", () => {
    expect(optional.map((t) => t.name).sort()).toEqual(
      [
        "admin-ingress.yaml",
        "grafana-dashboard.yaml",
        "horizontalpodautoscaler.yaml",
        "ingress.yaml",
        "networkpolicy.yaml",
        "poddisruptionbudget.yaml",
        "prometheusrule.yaml",
        "redis-networkpolicy.yaml",
        "redis-service.yaml",
        "redis-statefulset.yaml",
        "servicemonitor.yaml",
      ].sort(),
    );
  });

  it.each(optional.map((t) => [t.name, t.text]))(
    "%s is wrapped in one if on enabled values that default to off",
    (_name, text) => {
      const lines = text.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^\{\{- if (.+) \}\}$/);
      const condition = /^\{\{- if (.+) \}\}$/.exec(lines[0] as string)?.[1];
      const enabled = [...(condition as string).matchAll(/\.Values\.([\w.]+)\.enabled/g)].map(
        (m) => m[1] as string,
      );
      expect(enabled.length).toBeGreaterThan(0);
      expect(condition).toMatch(/^(?:and )?(?:\.Values\.[\w.]+\.enabled ?)+$/);
      for (const path of enabled) expect(valueAt(values(), [...path.split("."), "enabled"])).toBe(false);
      expect(lines.at(-1)).toBe("{{- end }}");
      // the opening if closes only on the last line
      let depth = 0;
      const blocks = actions(text).filter((a) => !a.body.startsWith("/*"));
      blocks.forEach((action, index) => {
        if (opening(action.body)) depth += 1;
        else if (action.body === "end") depth -= 1;
        if (index < blocks.length - 1) expect(depth, `line ${action.line}`).toBeGreaterThan(0);
      });
      expect(depth).toBe(0);
    },
  );

  it.each([...CONDITIONAL])("%s is wrapped in {{- if %s }}", (name, condition) => {
    const text = chartFile(`templates/${name}`).trimEnd();
    expect(text.split("\n")[0]).toBe(`{{- if ${condition} }}`);
    expect(text.split("\n").at(-1)).toBe("{{- end }}");
  });

  it("refuse a ServiceMonitor when the gateway records no metrics", () => {
    const lines = chartFile("templates/servicemonitor.yaml").split("\n");
    expect(lines.slice(1, 4)).toEqual([
      "{{- if not .Values.config.metrics.enabled }}",
      expect.stringMatching(/^\{\{- fail "serviceMonitor\.enabled needs config\.metrics\.enabled: .+" \}\}$/),
      "{{- end }}",
    ]);
  });

  it("hold one resource kind per file", () => {
    for (const { name, text } of manifests) {
      expect(text.match(/^kind: /gm), name).toHaveLength(1);
    }
  });
});

function values() {
  return defaultValues();
}

describe("deployment.yaml", () => {
  const deployment = chartFile("templates/deployment.yaml");

  it("probes liveness at /healthz and readiness at /readyz on the public port, HTTPS with gateway TLS", () => {
    expect(deployment).toMatch(
      /livenessProbe:\n\s+httpGet:\n\s+path: \/healthz\n\s+port: http\n\s+scheme: \{\{ \$scheme \}\}/,
    );
    expect(deployment).toMatch(
      /readinessProbe:\n\s+httpGet:\n\s+path: \/readyz\n\s+port: http\n\s+scheme: \{\{ \$scheme \}\}/,
    );
    expect(deployment).toMatch(/startupProbe:\n\s+httpGet:\n\s+path: \/healthz/);
    expect(deployment).toContain('{{- $scheme := ternary "HTTPS" "HTTP" .Values.gatewayTls.enabled }}');
  });

  it("rolls the pods when the rendered ConfigMap (or the chart's Secret) changes", () => {
    expect(deployment).toMatch(
      /template:\n\s+metadata:\n\s+annotations:\n\s+checksum\/config: \{\{ include \(print \$\.Template\.BasePath "\/configmap\.yaml"\) \. \| sha256sum \}\}/,
    );
    expect(deployment).toContain(
      'checksum/secret: {{ include (print $.Template.BasePath "/secret.yaml") . | sha256sum }}',
    );
  });

  it("derives terminationGracePeriodSeconds from the preStop sleep, drainSeconds and a margin", () => {
    expect(deployment).toContain("{{- $drainSeconds := int .Values.config.shutdown.drainSeconds }}");
    expect(deployment).toContain("{{- $preStopSeconds := int .Values.gateway.preStop.sleepSeconds }}");
    expect(deployment).toContain(
      "terminationGracePeriodSeconds: {{ add $preStopSeconds $drainSeconds (int .Values.gateway.terminationGraceMarginSeconds) }}",
    );
    // defaults: 5 s preStop + 30 s drain + 10 s margin
    const v = values();
    expect(
      v.gateway.preStop.sleepSeconds +
        v.config.shutdown.drainSeconds +
        v.gateway.terminationGraceMarginSeconds,
    ).toBe(45);
  });

  it("sleeps before SIGTERM, natively on request, and holds the model server's SIGTERM until the drain is over", () => {
    expect(deployment).toContain('command: ["sleep", "{{ $preStopSeconds }}"]');
    expect(deployment).toContain("seconds: {{ $preStopSeconds }}");
    expect(deployment).toContain('command: ["sleep", "{{ add $preStopSeconds $drainSeconds }}"]');
  });

  it("runs the model server only in sidecar mode, with the gateway as the default container", () => {
    expect(deployment).toMatch(/\{\{- if \$sidecar \}\}\n\s+- name: model-server/);
    expect(deployment).toContain("kubectl.kubernetes.io/default-container: gateway");
    expect(deployment).toContain("enableServiceLinks: false");
  });

  it("mounts config.yaml where TUNNEL_CONFIG points", () => {
    expect(deployment).toMatch(/- name: TUNNEL_CONFIG\n\s+value: \/etc\/tunnel-gateway\/config\.yaml/);
    expect(deployment).toMatch(/mountPath: \/etc\/tunnel-gateway\/config\.yaml\n\s+subPath: config\.yaml/);
  });

  it("applies the restricted security context by default", () => {
    const v = values();
    expect(v.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(v.podSecurityContext.seccompProfile).toEqual({ type: "RuntimeDefault" });
    expect(v.gateway.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(v.serviceAccount.automountServiceAccountToken).toBe(false);
  });
});

describe("Services", () => {
  it.each(["service.yaml", "service-internal.yaml"])(
    "%s exposes only gateway ports, never the model server's",
    (name) => {
      const service = chartFile(`templates/${name}`);
      expect(service).not.toMatch(/modelServer|model-server/);
      const targets = [...service.matchAll(/targetPort: (\S+)/g)].map((m) => m[1]);
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) expect(["http", "metrics", "admin"]).toContain(target);
    },
  );

  it("keep metrics and admin off the public Service", () => {
    expect(chartFile("templates/service.yaml")).not.toMatch(/targetPort: (metrics|admin)/);
    expect(chartFile("templates/service-internal.yaml")).toMatch(/type: ClusterIP/);
    expect(chartFile("templates/service-internal.yaml")).toMatch(
      /\{\{- if \.Values\.admin\.enabled \}\}\n\s+- name: admin/,
    );
  });

  it("select only the gateway pods, never the bundled Redis", () => {
    for (const name of ["service.yaml", "service-internal.yaml"]) {
      expect(chartFile(`templates/${name}`)).toMatch(
        /selector:\n[\s\S]*app\.kubernetes\.io\/component: gateway\n?$/,
      );
    }
  });
});

describe("the bundled Redis", () => {
  const statefulset = chartFile("templates/redis-statefulset.yaml");

  it("persists with an append-only file on a PersistentVolumeClaim by default, and never evicts", () => {
    expect(statefulset).toMatch(
      /- --appendonly\n\s+- "yes"\n\s+- --appendfsync\n\s+- \{\{ \$redis\.appendfsync \}\}/,
    );
    expect(statefulset).toMatch(/- --maxmemory-policy\n\s+- noeviction/);
    expect(statefulset).toContain("volumeClaimTemplates:");
    expect(values().redis.bundled.persistence.enabled).toBe(true);
    expect(values().redis.bundled.appendfsync).toBe("everysec");
  });

  it("requires its password from the Secret and probes with redis-cli", () => {
    expect(statefulset).toMatch(/- --requirepass\n\s+- \$\(REDIS_PASSWORD\)/);
    expect(statefulset).toContain("redis-cli -p {{ $port }} ping");
    expect(values().redis.bundled.podSecurityContext.runAsNonRoot).toBe(true);
  });
});

describe("PrometheusRule and the rule file contract", () => {
  const template = chartFile("templates/prometheusrule.yaml");
  const contract: Array<[string, string, number]> = [
    ["key_budget_fraction", "keyBudgetFraction", 0.1],
    ["account_balance_fraction", "accountBalanceFraction", 0.1],
    ["refusal_ratio", "refusalRatio", 0.05],
    ["upstream_error_ratio", "upstreamErrorRatio", 0.05],
    ["overhead_p99_seconds", "overheadP99Seconds", 0.005],
    ["settlements_pending", "settlementsPending", 1],
    ["webhook_delivery_age_seconds", "webhookDeliveryAgeSeconds", 3600],
    ["queue_wait_p95_seconds", "queueWaitP95Seconds", 10],
    ["sign_in_failures", "signInFailures", 20],
  ];

  it("renders the thresholds group from prometheusRule.thresholds", () => {
    expect(template).toContain("- name: tunnel-gateway-thresholds");
    for (const [record, value, fallback] of contract) {
      expect(template).toContain(
        `- record: tunnel_gateway:alert_threshold:${record}\n          expr: vector({{ $thresholds.${value} }})`,
      );
      expect(values().prometheusRule.thresholds[value]).toBe(fallback);
    }
    expect(Object.keys(values().prometheusRule.thresholds).sort()).toEqual(contract.map((c) => c[1]).sort());
  });

  it("copies every other group of files/prometheus-rules.yaml verbatim, without tpl", () => {
    expect(template).toContain("{{- $rules := $file | fromYaml }}");
    expect(template).toContain('{{- if ne .name "tunnel-gateway-thresholds" }}');
    expect(template).toContain("{{- toYaml . | nindent 6 }}");
    expect(template).not.toContain("tpl ");
  });

  it("matches files/prometheus-rules.yaml: its first group holds exactly the threshold records, at the same defaults", () => {
    const rules = parseYaml(chartFile("files/prometheus-rules.yaml")) as {
      groups: Array<{ name: string; rules: Array<{ record?: string; expr: string }> }>;
    };
    const [first, ...others] = rules.groups;
    expect(first?.name).toBe("tunnel-gateway-thresholds");
    expect(first?.rules.map((r) => [r.record, r.expr])).toEqual(
      contract.map(([record, , fallback]) => [
        `tunnel_gateway:alert_threshold:${record}`,
        `vector(${fallback})`,
      ]),
    );
    expect(others.length).toBeGreaterThan(0);
  });

  it("ships a Grafana dashboard that is valid JSON", () => {
    const dashboard = JSON.parse(chartFile("files/grafana-dashboard.json")) as { panels?: unknown[] };
    expect(Array.isArray(dashboard.panels)).toBe(true);
    expect(chartFile("templates/grafana-dashboard.yaml")).toContain(
      '.Files.Get "files/grafana-dashboard.json"',
    );
  });
});

describe("NOTES.txt", () => {
  const notes = chartFile("templates/NOTES.txt");

  it("tells how to reach the gateway for each way of exposing it", () => {
    expect(notes).toContain("{{- if .Values.ingress.enabled }}");
    expect(notes).toContain('{{- if eq .Values.service.type "LoadBalancer" }}');
    expect(notes).toContain('{{- else if eq .Values.service.type "NodePort" }}');
    expect(notes).toContain("port-forward svc/{{ $fullname }}");
  });

  it("shows how to create the first account and key with the CLI, and how to open the dashboard", () => {
    expect(notes).toContain('exec deploy/%s -c gateway -- node dist/cli.js" $namespace $fullname');
    expect(notes).toContain("{{ $cli }} accounts create acme");
    expect(notes).toContain("{{ $cli }} keys create --account acme");
    expect(notes).toMatch(/\{\{- if \.Values\.admin\.enabled \}\}\n\n3\. Open the admin dashboard/);
    // How people sign in: the redirect URLs to register, the first operator, the admin token as the last resort.
    expect(notes).toContain("/auth/oidc/{{ .id }}/callback");
    expect(notes).toContain('{{ $cli }} users create --email ops@example.com --name "Ops" --operator');
    expect(notes).toContain("Sign in with the admin token:");
  });
});

describe("Chart.yaml", () => {
  it("describes the chart as the platform needs it", () => {
    const chart = readYamlFile(`${CHART_DIR}Chart.yaml`);
    expect(chart).toMatchObject({
      apiVersion: "v2",
      name: "tunnel-gateway",
      version: "0.1.0",
      appVersion: "0.1.0",
      kubeVersion: ">=1.25.0-0",
      type: "application",
    });
    expect(chart.description).toMatch(/gateway/);
    expect(chart.keywords.length).toBeGreaterThan(2);
    expect(chart.maintainers.length).toBeGreaterThan(0);
  });
});
