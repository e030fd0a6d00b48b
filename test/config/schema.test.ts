// Settings whose limits protect money or data: the schema refuses values that would break them, saying why.

import { describe, expect, it } from "vitest";
import { configSchema, redisDatabase } from "../../src/config/schema.js";

function issues(input: unknown): string[] {
  const result = configSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("configSchema", () => {
  it("keeps daily usage at least 31 days, the longest a switch to a monthly budget counts back", () => {
    expect(issues({ billing: { usageRetentionDays: 30 } })).toEqual([
      "billing.usageRetentionDays: must be at least 31: a key switched to a monthly budget counts up to 31 days of usage",
    ]);
    expect(issues({ billing: { usageRetentionDays: 31 } })).toEqual([]);
    expect(configSchema.parse({}).billing.usageRetentionDays).toBe(400);
  });

  it("expires a key's recent requests after requestLog.retentionDays, 30 by default and at least 1", () => {
    expect(configSchema.parse({}).requestLog.retentionDays).toBe(30);
    expect(configSchema.parse({ requestLog: { retentionDays: 1 } }).requestLog.retentionDays).toBe(1);
    expect(issues({ requestLog: { retentionDays: 0 } })).toEqual([
      expect.stringMatching(/^requestLog\.retentionDays: .*>=1/),
    ]);
    expect(issues({ requestLog: { retentionDays: 1.5 } })).toHaveLength(1);
  });

  it("leaves the limit on the model server off by default, and shares it across replicas only once it is set", () => {
    const defaults = configSchema.parse({});
    expect(defaults.upstream.maxInFlight).toBeUndefined();
    expect(defaults.upstream.priorityField).toBeUndefined();
    expect(defaults.queue).toEqual({ maxWaitMs: 30_000, maxRequests: 10_000, maxRequestsPerAccount: 1000 });
    expect(issues({ upstream: { sharedInFlight: true } })).toEqual([
      "upstream.sharedInFlight: sharedInFlight needs maxInFlight: the limit the replicas share",
    ]);
    expect(issues({ upstream: { sharedInFlight: true, maxInFlight: 8 } })).toEqual([]);
    expect(issues({ upstream: { maxInFlight: 0 } })).toHaveLength(1);
  });

  it("takes a priority field by name or dotted path, never text that is not one", () => {
    expect(issues({ upstream: { priorityField: "priority" } })).toEqual([]);
    expect(issues({ upstream: { priorityField: "nvext.priority" } })).toEqual([]);
    for (const priorityField of ["", "a..b", "pri ority", "1st"]) {
      expect(issues({ upstream: { priorityField } }), priorityField).toEqual([
        "upstream.priorityField: must be a field name such as priority, or a dotted path such as nvext.priority",
      ]);
    }
  });

  it("refuses credentials in upstream.url, which would be logged and never sent", () => {
    expect(issues({ upstream: { url: "https://user:secret@models.internal:8000" } })).toEqual([
      "upstream.url: must not contain credentials; put the model server's key in upstream.apiKey (TUNNEL_UPSTREAM_API_KEY)",
    ]);
    expect(issues({ upstream: { url: "http://models.internal:8000/api?x=a@b" } })).toEqual([]);
    expect(issues({ upstream: { url: "ftp://models.internal" } })).toEqual([
      "upstream.url: must be an http:// or https:// URL",
    ]);
  });

  it("refuses an upstream URL ending in /v1, which would send every request to /v1/v1/…", () => {
    const refusal =
      "upstream.url: must not end in /v1: the gateway forwards the client's path as it is, so a request for " +
      "/v1/chat/completions would go to …/v1/v1/chat/completions; give the model server's root, such as " +
      "http://127.0.0.1:8000";
    for (const url of ["http://vllm:8000/v1", "http://vllm:8000/v1/", "https://models.example/openai/V1"]) {
      expect(issues({ upstream: { url } }), url).toEqual([refusal]);
    }
    for (const url of ["http://vllm:8000", "http://vllm:8000/", "http://proxy/v1beta", "http://proxy/v1/x"]) {
      expect(issues({ upstream: { url } }), url).toEqual([]);
    }
  });

  it("refuses an upstream URL that is not one, such as an address without its scheme, naming the setting", () => {
    // new URL() in the /v1 refinement throws on these, so the parse throws "Invalid URL" instead of
    // reporting the setting: serve (and any command, when the file holds it) fails as internal_error.
    for (const url of ["127.0.0.1:8000", "not a url", "http//vllm:8000"]) {
      expect(issues({ upstream: { url } }), url).toEqual([
        "upstream.url: must be an http:// or https:// URL",
      ]);
    }
  });

  it("takes a database number as the path of redis.url, and nothing else there", () => {
    expect(configSchema.parse({ redis: { url: "redis://r:6379/2" } }).redis.url).toBe("redis://r:6379/2");
    expect(issues({ redis: { url: "redis://r:6379/" } })).toEqual([]);
    expect(issues({ redis: { url: "redis://r:6379/two" } })).toEqual([
      "redis.url: may have a database number as its path (redis://host:6379/2), nothing else",
    ]);
    expect(redisDatabase("rediss://:pw@r:6380/15")).toBe(15);
    expect(redisDatabase("redis://r:6379")).toBe(0);
  });

  it("refuses a database number with Cluster or Sentinel, where the URL is not used", () => {
    const cluster = { nodes: ["r0:6379"] };
    expect(issues({ redis: { url: "redis://r:6379/2", cluster } })).toEqual([
      expect.stringMatching(
        /^redis\.url: a database number in redis\.url does not apply with redis\.cluster/,
      ),
    ]);
    const sentinel = { sentinels: ["s:26379"], name: "m" };
    expect(issues({ redis: { url: "redis://r:6379/3", sentinel } })).toHaveLength(1);
    expect(issues({ redis: { url: "redis://r:6379/0", cluster } })).toEqual([]);
  });

  it("names the bad field of sign-in settings: providers, their rules, the external URL", () => {
    const provider = { id: "corp", name: "Corp", issuer: "https://idp.example", clientId: "gw" };
    expect(
      issues({
        signIn: {
          providers: [
            { ...provider, scopes: ["email"], clientSecretEnv: "A", clientSecretFile: "/f" },
            {
              ...provider,
              rules: [
                { account: "acme" },
                { groups: ["g"] },
                { groups: ["g"], account: "acme", role: "boss" },
              ],
            },
            { ...provider, id: "Corp Login", issuer: "idp.example" },
          ],
        },
      }),
    ).toEqual([
      "signIn.providers.0: give clientSecretEnv or clientSecretFile, not both",
      "signIn.providers.0.scopes: scopes must include openid",
      expect.stringMatching(/^signIn\.providers\.1\.rules\.0: needs groups or emailDomains/),
      expect.stringMatching(/^signIn\.providers\.1\.rules\.0: account and role go together/),
      expect.stringMatching(/^signIn\.providers\.1\.rules\.1: needs operator, or account with role/),
      expect.stringMatching(/^signIn\.providers\.1\.rules\.2\.role: /),
      expect.stringMatching(/^signIn\.providers\.2\.id: must be 1 to 32 lowercase/),
      "signIn.providers.2.issuer: must be an http:// or https:// URL",
    ]);
    expect(issues({ signIn: { providers: [provider, provider] } })).toEqual([
      "signIn.providers.1.id: is used by another provider",
    ]);
    // What a provider speaks for, and the authorization request's extra parameters, never the flow's own.
    expect(
      issues({
        signIn: {
          providers: [
            { ...provider, domains: ["Corp.Example"], authParams: { state: "mine", access_type: "offline" } },
          ],
          providerCheck: { intervalMinutes: -1 },
        },
      }),
    ).toEqual([
      "signIn.providerCheck.intervalMinutes: Too small: expected number to be >=0",
      "signIn.providers.0.domains.0: must be a lower-case domain such as example.com",
      expect.stringMatching(/^signIn\.providers\.0\.authParams\.state: .*is set by the sign-in flow itself/),
    ]);
    expect(configSchema.parse({ signIn: { providers: [provider] } }).signIn.providers[0]).toMatchObject({
      domains: [],
      requireForDomains: true,
      authParams: {},
    });
    expect(issues({ admin: { externalUrl: "https://gw.example/dashboard" } })).toEqual([
      "admin.externalUrl: must be an origin such as https://gateway.example.com, without a path: the dashboard is served at /",
    ]);
    expect(
      issues({ admin: { externalUrl: "https://gw.example/" }, signIn: { providers: [provider] } }),
    ).toEqual([]);
    expect(configSchema.parse({}).signIn).toMatchObject({ local: { enabled: false }, providers: [] });
  });
});
