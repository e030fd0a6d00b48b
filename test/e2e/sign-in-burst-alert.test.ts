// The sign-in burst alert against what a real gateway exports, beside the hand-written promtool case of
// test/observability/prometheus-rules.test.yaml: a gateway with password sign-in answers wrong passwords over
// HTTP (with the default lockout: wrong_password, then locked), /metrics is scraped before, after 15 failures
// and after 30, and the scraped series of tunnel_gateway_identity_events_total — every event and outcome the
// gateway exports, labels as it writes them — become the input of a `promtool test rules` file run against
// the chart's rule file: 15 failures stay quiet, 30 fire TunnelGatewaySignInFailuresBurst with the count
// in its description. A renamed label or outcome, or an event the rule does not select, fails here.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ACTOR } from "../helpers/actor.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { promtool } from "../observability/metric-names.js";

const RULES = fileURLToPath(
  new URL("../../helm/tunnel-gateway/files/prometheus-rules.yaml", import.meta.url),
);
const SERIES = /^(tunnel_gateway_identity_events_total)\{([^}]*)\} (\d+)$/gm;
let t: TestGateway;
let admin: string;
const tempDir = temporaryDirectories("sign-in-burst-");

beforeAll(async () => {
  t = await startTestGateway({ config: { signIn: { local: { enabled: true } } } as never });
  admin = t.gateway.adminUrl as string;
  await testIdentity(t.store).users.create(
    { email: "ceo@example.com", name: "CEO", password: "the-real-password-0123" },
    ACTOR,
  );
});
afterAll(async () => {
  await t?.close();
});

/** Every identity-event series the gateway exports: its labels as written, and its value. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await fetch(`${t.gateway.metricsUrl}/metrics`)).text();
  const found = new Map<string, number>();
  for (const [, name, labels, value] of text.matchAll(SERIES)) found.set(`${name}{${labels}}`, Number(value));
  return found;
}

async function failedPasswords(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${admin}/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ email: "ceo@example.com", password: `guess-number-${i}` }),
    });
    expect([401, 429]).toContain(res.status);
    await res.text();
  }
}

/**
 * A promtool test whose input is the scraped series as one replica's: `before` for ten minutes, then
 * `after` from minute 11 on; the alert is evaluated at minute 9 (before anything) and minute 15.
 */
function promtoolCase(before: Map<string, number>, after: Map<string, number>, firing: boolean): string {
  const where = 'job="tunnel-gateway", instance="10.0.0.1:9464", ';
  const input_series = [...after].map(([series, value]) => ({
    series: series.replace("{", `{${where}`),
    values: `${before.get(series) ?? 0}x10 ${value}x30`,
  }));
  const failed = [...after]
    .filter(([series]) => /event="sign_in\.[^"]+"/.test(series) && !series.includes('outcome="success"'))
    .reduce((sum, [series, value]) => sum + value - (before.get(series) ?? 0), 0);
  const file = join(tempDir(), "burst.test.yaml");
  writeFileSync(
    file,
    stringify({
      rule_files: [RULES],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series,
          alert_rule_test: [
            { eval_time: "9m", alertname: "TunnelGatewaySignInFailuresBurst", exp_alerts: [] },
            {
              eval_time: "15m",
              alertname: "TunnelGatewaySignInFailuresBurst",
              exp_alerts: firing
                ? [
                    {
                      exp_labels: { severity: "warning", job: "tunnel-gateway" },
                      exp_annotations: {
                        summary: "A burst of failed sign-ins at tunnel-gateway",
                        description: description(failed),
                      },
                    },
                  ]
                : [],
            },
          ],
        },
      ],
    }),
  );
  return file;
}

/** The alert's description for `failed` failures over the default threshold, as the rule writes it. */
function description(failed: number): string {
  return (
    `${failed} sign-ins failed in the last 5 minutes, more than 20: someone may be guessing passwords or ` +
    'trying leaked ones. The "sign-in with a password" and "sign-in locked" log lines name the address and ' +
    "the outcome (unknown_user, wrong_password, locked); tunnel_gateway_identity_events_total by outcome " +
    "says which. Block the address upstream, or lower signIn.attempts limits."
  );
}

describe("TunnelGatewaySignInFailuresBurst on a real gateway's series", () => {
  it("stays quiet after 15 failed passwords and fires after 30, counting them all", async () => {
    const before = await scrape();
    expect(before.size, "every event and outcome is exported from the start").toBeGreaterThan(40);
    await failedPasswords(15);
    const middle = await scrape();
    await failedPasswords(15);
    const after = await scrape();
    const changed = [...after].filter(([series, value]) => value !== before.get(series)).map(([s]) => s);
    expect(changed.sort()).toEqual([
      'tunnel_gateway_identity_events_total{event="lockout",outcome="address"}',
      'tunnel_gateway_identity_events_total{event="lockout",outcome="email"}',
      'tunnel_gateway_identity_events_total{event="sign_in.password",outcome="locked"}',
      'tunnel_gateway_identity_events_total{event="sign_in.password",outcome="wrong_password"}',
    ]);

    const quiet = promtool(["test", "rules", promtoolCase(before, middle, false)]);
    expect(quiet.status, quiet.output).toBe(0);
    const firing = promtool(["test", "rules", promtoolCase(before, after, true)]);
    expect(firing.status, firing.output).toBe(0);
    expect(firing.output).toContain("SUCCESS");
  });
});
