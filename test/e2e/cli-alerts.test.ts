// The CLI's alert commands end to end: `node dist/cli.js accounts webhook|alerts|events …` and the keys'
// --alert-at / --no-alerts, in child processes against the suite's Redis and a real webhook receiver.
// `npm test` builds dist/ first.

import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { documentedVerify } from "../helpers/alerts.js";
import { openStore, type TestStore, testPrefix } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");
const temporaryDirectory = temporaryDirectories("tunnel-cli-alerts-");

let env: Record<string, string>;
let store: TestStore;
let receiver: WebhookReceiver;
/** A configuration that lets webhooks be http:// and on loopback, as the test receiver is. */
let loopbackConfig: string;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env, TUNNEL_CONFIG: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(args: string[]): Promise<any> {
  const result = await run([...args, "--json"]);
  expect(result.stderr, args.join(" ")).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

async function fails(args: string[], message: RegExp): Promise<void> {
  const result = await run(args);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
}

beforeAll(async () => {
  if (!existsSync(CLI))
    throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it for you)");
  const prefix = testPrefix();
  env = { TUNNEL_REDIS_URL: inject("redisUrl"), TUNNEL_REDIS_PREFIX: prefix };
  store = await openStore({ prefix });
  receiver = await startWebhookReceiver();
  loopbackConfig = join(temporaryDirectory(), "config.yaml");
  writeFileSync(loopbackConfig, "alerts:\n  allowHttp: true\n  allowPrivateNetworks: true\n");
  expect((await run(["accounts", "create", "acme", "--balance", "100"])).code).toBe(0);
});

afterAll(async () => {
  store?.close();
  await receiver?.close();
});

describe("accounts webhook", () => {
  it("sets a webhook with its secret printed once, shows it without, tests and removes it", async () => {
    await fails(
      ["accounts", "webhook", "set", "acme", receiver.url],
      /^error: url must be an https:\/\/ URL \(http:\/\/ needs alerts\.allowHttp\)$/m,
    );
    const set = await ok(["accounts", "webhook", "set", "acme", receiver.url, "--config", loopbackConfig]);
    expect(set).toMatchObject({ account_id: "acme", url: receiver.url, events: null });
    expect(set.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const text = await run(["accounts", "webhook", "show", "acme"]);
    expect(text.stdout).toContain(`secret   …${set.secret.slice(-4)}`);
    expect(text.stdout).not.toContain(set.secret);

    const tested = await ok(["accounts", "webhook", "test", "acme", "--config", loopbackConfig]);
    expect(tested).toMatchObject({ delivered: true, status_code: 200 });
    const [received] = receiver.received;
    expect(received?.body).toMatchObject({ id: tested.event_id, type: "webhook.test", account_id: "acme" });
    const verify = await documentedVerify();
    expect(verify(set.secret, received?.signature as string, received?.raw as string)).toBe(true);

    // Without allowPrivateNetworks the loopback receiver is refused, and the command says so.
    const refused = await run(["accounts", "webhook", "test", "acme"]);
    expect(refused.code).toBe(0);
    expect(refused.stdout).toMatch(/was not delivered: 127\.0\.0\.1 is not a public address/);
    expect(receiver.received).toHaveLength(1);

    expect(await ok(["accounts", "webhook", "remove", "acme"])).toEqual({
      account_id: "acme",
      removed: true,
    });
    expect(await ok(["accounts", "webhook", "remove", "acme"])).toEqual({
      account_id: "acme",
      removed: false,
    });
    await fails(["accounts", "webhook", "test", "acme"], /account acme has no webhook to test/);
  });

  it("takes the event types a webhook receives, and refuses unknown ones", async () => {
    const set = await ok([
      "accounts",
      "webhook",
      "set",
      "acme",
      "https://hooks.example.com/t",
      "--events",
      "budget.threshold,balance.low",
    ]);
    expect(set.events).toEqual(["budget.threshold", "balance.low"]);
    await fails(
      ["accounts", "webhook", "set", "acme", "https://hooks.example.com/t", "--events", "budget.crossed"],
      /events must be a list of event types/,
    );
  });
});

describe("accounts alerts and events", () => {
  it("sets and removes the low-balance mark, and lists the account's events with their deliveries", async () => {
    expect(await ok(["accounts", "alerts", "acme", "--low-balance", "12.5"])).toMatchObject({
      account_id: "acme",
      low_balance: 12.5,
      default_thresholds: [80, 95, 100],
    });
    expect((await ok(["accounts", "alerts", "acme", "--no-low-balance"])).low_balance).toBeNull();
    await fails(
      ["accounts", "alerts", "acme", "--low-balance", "-1"],
      /low_balance must be a positive amount/,
    );
    const audit = await store.stores.audit.list("acme", 10);
    expect(audit.map((entry) => entry.action)).toContain("account.alerts.update");

    const created = await ok(["keys", "create", "--account", "acme", "--name", "k"]);
    const { events } = await ok(["accounts", "events", "acme"]);
    expect(events[0]).toMatchObject({ type: "key.created", key_id: created.id, status: "queued" });
    const table = await run(["accounts", "events", "acme"]);
    expect(table.stdout).toMatch(/^TIME \(UTC\)\s+TYPE\s+KEY\s+STATUS\s+DELIVERIES$/m);
    expect(table.stdout).toContain(created.id);
  });
});

describe("keys --alert-at and --no-alerts", () => {
  it("set a key's thresholds, turn them off, and go back to the defaults", async () => {
    const own = await ok([
      "keys",
      "create",
      "--account",
      "acme",
      "--name",
      "a",
      "--budget",
      "10",
      "--alert-at",
      "90,50",
    ]);
    const off = await ok(["keys", "create", "--account", "acme", "--name", "b", "--no-alerts"]);
    const ref = (id: string) => ({ accountId: "acme", keyId: id });
    expect((await store.keys.get(ref(own.id)))?.alertAt).toEqual([50, 90]);
    expect((await store.keys.get(ref(off.id)))?.alertAt).toEqual([]);
    await ok(["keys", "update", off.id, "--alert-at", "default"]);
    expect((await store.keys.get(ref(off.id)))?.alertAt).toBeNull();
    await ok(["keys", "update", own.id, "--no-alerts"]);
    expect((await store.keys.get(ref(own.id)))?.alertAt).toEqual([]);
    await fails(
      ["keys", "update", own.id, "--alert-at", "80,150"],
      /alert_at must be a list of whole percents/,
    );
    const both = await run([
      "keys",
      "create",
      "--account",
      "acme",
      "--name",
      "c",
      "--alert-at",
      "50",
      "--no-alerts",
    ]);
    expect(both.code).toBe(2);
  });
});
