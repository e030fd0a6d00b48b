// `serve` validates its configuration in a worker thread (src/config/validation-worker.ts, started by
// load-in-worker.ts) so that the serving process never loads zod, the schema or yaml. What comes back must be
// what loadConfig gives in-process: the same configuration, value for value and of the same kinds, the same
// ConfigError messages, and the same answer to "where did this setting come from". The worker runs as built
// (dist/), since a thread cannot load TypeScript; `npm run build` comes first.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error.js";
import { type LoadOptions, loadConfig } from "../../src/config/load.js";
import type * as LoadInWorker from "../../src/config/load-in-worker.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const BUILT = join(import.meta.dirname, "../../dist/config");
const { loadConfigInWorker } = (await import(join(BUILT, "load-in-worker.js"))) as typeof LoadInWorker;
/** The built ConfigError, the class the worker's refusals come back as. */
const { ConfigError: BuiltConfigError } = (await import(join(BUILT, "config-error.js"))) as {
  ConfigError: typeof ConfigError;
};

const temporaryDirectory = temporaryDirectories("tunnel-config-worker-");

function file(yaml: string): string {
  const path = join(temporaryDirectory(), "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

/** One setting or more away from the default in every section, lists and mappings of each kind included. */
const EVERY_SECTION = `
listen: { host: 0.0.0.0, port: 8090 }
auth: { acceptXApiKey: false }
endpoints: { "POST /props": free, "/v1/my-endpoint": generation, "/prefix/*": other }
upstream:
  url: http://models:8000
  apiKey: model-server-key
  maxInFlight: 8
  sharedInFlight: true
  priorityField: nvext.priority
  priorityOrder: higherFirst
queue: { maxWaitMs: 1000, maxRequests: 10, maxRequestsPerAccount: 5 }
tls: { certFile: /etc/tls/cert.pem, keyFile: /etc/tls/key.pem }
security: { requireHttps: true, trustedProxies: [10.0.0.0/8, "fd00::/8"], hstsMaxAgeSeconds: 60 }
shutdown: { drainSeconds: 5 }
redis:
  url: redis://r:6379
  prefix: "gw:"
  username: gateway
  password: redis-password
  tls: { enabled: true, caFile: /etc/redis/ca.pem, rejectUnauthorized: false }
  sentinel: { sentinels: ["s1:26379", "[::1]:26379"], name: mymaster, password: sentinel-password }
  commandTimeoutMs: 1000
  allowNoPersistence: true
  settlementReplicas: 1
  settlementReplicaTimeoutMs: 100
metrics: { enabled: false, host: 0.0.0.0, port: 9000, perKey: false, maxKeySeries: 5 }
telemetry: { genAiProvider: sglang }
admin: { host: 0.0.0.0, port: 9001, token: an-admin-token-long-enough, externalUrl: https://gw.example.com }
signIn:
  local: { enabled: true, minPasswordLength: 10, passwordLinkHours: 2 }
  attempts: { maxFailures: 3 }
  sessions: { idleMinutes: 10, absoluteHours: 2 }
  invitations: { ttlDays: 3 }
  apiTokens: { maxDays: 30 }
  providerCheck: { intervalMinutes: 0 }
  providers:
    - id: corp
      name: Corporate sign-in
      issuer: https://login.example.com
      clientId: gateway
      clientSecretEnv: CORP_SECRET
      rules:
        - { groups: [admins], operator: operator }
        - { emailDomains: [example.com], account: team-a, role: member }
      domains: [example.com]
      authParams: { access_type: offline }
  scim: { provider: corp }
requestLog: { maxPerKey: 10, maxBodyBytes: 100, retentionDays: 2 }
billing: { timezone: Europe/Moscow, overage: charge, leases: false }
pricing:
  default: { input: 1.5, output: "2.25" }
  models:
    llama: { input: 0.000001, output: 3 }
estimate: { reserveBytesPerToken: 2 }
limits: { maxBodyBytes: 1000, maxJsonDepth: 8, maxChoices: 2 }
metering: { maxEventBytes: 2000 }
alerts:
  thresholds: [50]
  webhooks:
    - { url: https://hooks.example.com/a, secretEnv: HOOK_SECRET, events: [budget.threshold] }
  eventRetentionDays: 3
  delivery: { giveUpHours: 12 }
logging: { level: warn, bodies: false, maxBodyBytes: 10 }
`;

/** Every place in `value` that is not plain data: what a structured clone would not give back as it is. */
function notPlainData(value: unknown, path = "config"): string[] {
  if (value === null || ["string", "number", "boolean", "undefined"].includes(typeof value)) return [];
  if (typeof value !== "object") return [`${path}: a ${typeof value}`];
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype)
    return [`${path}: a ${value.constructor?.name ?? "null-prototype object"}`];
  return Object.entries(value).flatMap(([key, inner]) => notPlainData(inner, `${path}.${key}`));
}

/** Every dotted path of a setting in `value`, sections and list items included. */
function settingPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [path];
  return [
    path,
    ...Object.entries(value).flatMap(([key, inner]) => settingPaths(inner, [...path, key])),
  ].filter((p) => p.length > 0);
}

async function refusalInWorker(options: LoadOptions): Promise<unknown> {
  return loadConfigInWorker(options).then(
    () => "validated",
    (error: unknown) => error,
  );
}

function refusalInProcess(options: LoadOptions): string {
  try {
    loadConfig(options);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError, but the configuration was valid");
}

const ENV = { CORP_SECRET: "not read by validation", TUNNEL_PORT: "8091" };
const CASES: [string, () => LoadOptions][] = [
  ["the default configuration", () => ({ env: {} })],
  [
    "a configuration setting every section, with a variable and flags over it",
    () => ({
      file: file(EVERY_SECTION),
      env: ENV,
      overrides: [{ path: ["metrics", "port"], value: 9002, source: "--metrics-port" }],
    }),
  ],
];

describe("the configuration validated in a worker thread", () => {
  it.each(CASES)("is loadConfig's, value for value and of the same kinds: %s", async (_, options) => {
    const given = options();
    const inProcess = loadConfig(given);
    // Nothing a message between threads would change (a class instance, a function, a Map) is in it.
    expect(notPlainData(inProcess.config)).toEqual([]);
    const inWorker = await loadConfigInWorker(given);
    expect(inWorker.config).toStrictEqual(inProcess.config);
  });

  it("differs from the default in every section, so that no section goes unchecked", () => {
    const every = loadConfig({ file: file(EVERY_SECTION), env: ENV }).config;
    const defaults = loadConfig({ env: {} }).config;
    for (const section of Object.keys(defaults) as (keyof typeof defaults)[])
      expect(every[section], section).not.toEqual(defaults[section]);
  });

  it.each(CASES)("names where every setting came from as SettingOrigins does: %s", async (_, options) => {
    const given = options();
    const inProcess = loadConfig(given);
    const inWorker = await loadConfigInWorker(given);
    const paths = settingPaths(inProcess.config);
    expect(paths.length).toBeGreaterThan(100);
    for (const path of paths)
      expect(inWorker.origins.of(path), path.join(".")).toBe(inProcess.origins.of(path));
  });

  it("names the variable, the flag and the file's line as loadConfig does", async () => {
    const options = CASES[1]?.[1]() as LoadOptions;
    const { origins } = await loadConfigInWorker(options);
    expect(origins.of(["listen", "port"])).toBe("TUNNEL_PORT");
    expect(origins.of(["metrics", "port"])).toBe("--metrics-port");
    expect(origins.of(["tls", "certFile"])).toBe(`${options.file} line 13`);
    expect(origins.of(["admin", "host"])).toBe(`${options.file} line 29`);
  });

  it.each<[string, () => LoadOptions]>([
    ["a bad value in the file, with its line", () => ({ file: file("listen:\n  port: eighty\n"), env: {} })],
    ["an unknown setting", () => ({ file: file("listen:\n  prot: 80\n"), env: {} })],
    ["a bad variable", () => ({ env: { TUNNEL_PORT: "eighty" } })],
    [
      "a bad flag",
      () => ({ env: {}, overrides: [{ path: ["upstream", "url"], value: "ftp://m", source: "--upstream" }] }),
    ],
    ["a missing file", () => ({ file: "/nonexistent/gateway.yaml", env: {} })],
    ["a file that is not YAML", () => ({ file: file("listen: [\n"), env: {} })],
    ["a variable for a section the file lacks", () => ({ env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "x" } })],
  ])("refuses %s with loadConfig's ConfigError, message for message", async (_, options) => {
    const given = options();
    const refusal = await refusalInWorker(given);
    expect(refusal).toBeInstanceOf(BuiltConfigError);
    expect((refusal as Error).message).toBe(refusalInProcess(given));
  });
});
