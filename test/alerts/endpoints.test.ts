import { describe, expect, it } from "vitest";
import { operatorEndpointId, operatorEndpoints, receives } from "../../src/alerts/endpoints.js";
import { configSchema } from "../../src/config/schema.js";

const alerts = configSchema.parse({
  alerts: {
    webhooks: [
      { url: "https://ops.example.com/a", secretEnv: "OPS_SECRET" },
      { url: "https://ops.example.com/b", secretEnv: "OPS_SECRET_B", events: ["balance.low"] },
    ],
  },
}).alerts;

describe("the operator's webhooks", () => {
  it("take their secrets from the variables they name, and keep an id that follows the URL", () => {
    const endpoints = operatorEndpoints(alerts, { OPS_SECRET: "s".repeat(16), OPS_SECRET_B: "t".repeat(20) });
    expect(endpoints).toEqual([
      {
        id: operatorEndpointId("https://ops.example.com/a"),
        kind: "operator",
        url: "https://ops.example.com/a",
        secret: "s".repeat(16),
        events: null,
      },
      {
        id: operatorEndpointId("https://ops.example.com/b"),
        kind: "operator",
        url: "https://ops.example.com/b",
        secret: "t".repeat(20),
        events: ["balance.low"],
      },
    ]);
    expect(endpoints[0]?.id).toMatch(/^op_[0-9a-f]{12}$/);
    expect(receives(endpoints[1] as (typeof endpoints)[1], "balance.low")).toBe(true);
    expect(receives(endpoints[1] as (typeof endpoints)[1], "budget.threshold")).toBe(false);
  });

  it("refuse to start without a secret, naming the variable and never a value", () => {
    expect(() => operatorEndpoints(alerts, { OPS_SECRET_B: "t".repeat(20) })).toThrow(
      "invalid configuration: alerts.webhooks.0.secretEnv: the environment variable OPS_SECRET must hold the webhook's signing secret, at least 16 characters; it is not set",
    );
    let message = "";
    try {
      operatorEndpoints(alerts, { OPS_SECRET: "short-secret", OPS_SECRET_B: "t".repeat(20) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/OPS_SECRET must hold .* it is shorter$/);
    expect(message).not.toContain("short-secret");
  });
});

describe("the alerts section of the configuration", () => {
  const issues = (input: unknown) => {
    const result = configSchema.safeParse({ alerts: input });
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("refuses http:// webhooks without allowHttp, a URL listed twice, and unknown event types", () => {
    expect(issues({ webhooks: [{ url: "http://ops.internal/", secretEnv: "S" }] })).toEqual([
      "alerts.webhooks.0.url: must be an https:// URL (http:// needs alerts.allowHttp)",
    ]);
    expect(issues({ allowHttp: true, webhooks: [{ url: "http://ops.internal/", secretEnv: "S" }] })).toEqual(
      [],
    );
    const twice = { url: "https://ops.example.com/", secretEnv: "S" };
    expect(issues({ webhooks: [twice, twice] })).toEqual(["alerts.webhooks.1.url: is listed twice"]);
    expect(issues({ webhooks: [{ ...twice, events: ["budget.crossed"] }] })).toHaveLength(1);
    expect(issues({ webhooks: [{ ...twice, secretEnv: "not a name" }] })).toEqual([
      "alerts.webhooks.0.secretEnv: must be the name of an environment variable",
    ]);
  });

  it("keeps events longer than deliveries are tried, and thresholds within 1 to 100 %", () => {
    expect(issues({ eventRetentionDays: 2, delivery: { giveUpHours: 48 } })).toEqual([
      "alerts.eventRetentionDays: must be longer than delivery.giveUpHours: events are kept until their deliveries are over",
    ]);
    expect(issues({ thresholds: [0] })).toHaveLength(1);
    expect(issues({ thresholds: [50, 101] })).toHaveLength(1);
  });
});
