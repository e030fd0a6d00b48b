// `tunnel-gateway accounts webhook …`, `accounts alerts` and `accounts events` (cli/alert-commands.ts) run
// in this process on the suite's Redis, with a real webhook receiver: what each changes, what it prints as
// text and with --json (a webhook's secret once, when it is set, and never again), and what it refuses.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { alertCommands } from "../../src/cli/alert-commands.js";
import { AlertService } from "../../src/services/alerts.js";
import { ACTOR } from "../helpers/actor.js";
import { spend } from "../helpers/alerts.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const temporaryDirectory = temporaryDirectories("tunnel-alert-cli-");

let store: TestStore;
let receiver: WebhookReceiver;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  // The receiver listens on loopback over plain HTTP: the configuration allows both.
  const config = join(temporaryDirectory(), "gateway.yaml");
  writeFileSync(
    config,
    "alerts:\n  allowHttp: true\n  allowPrivateNetworks: true\n  thresholds: [75, 100]\n",
  );
  vi.stubEnv("TUNNEL_CONFIG", config);
  receiver = await startWebhookReceiver();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  store.close();
  await receiver.close();
});

const register = (program: Command) => alertCommands(accountsCommands(program));
const cli = (...args: string[]) => runCli(register, args);
const service = () => new AlertService(store.stores, { allowHttp: true, thresholds: [] });

describe("accounts webhook set", () => {
  it("sets the webhook and prints its signing secret once, with the events it takes", async () => {
    const run = await cli("accounts", "webhook", "set", "acme", receiver.url);
    expect(run.error).toBeNull();
    const secret = (await store.stores.alertSettings.webhook("acme"))?.secret as string;
    expect(run.stdout).toBe(
      [
        `Webhook of account acme set: ${receiver.url}`,
        "events   all",
        "",
        "Signing secret (verify X-Tunnel-Signature with it; see docs/alerts-and-webhooks.md):",
        "",
        `  ${secret}`,
        "",
        "This is the only time the secret is shown. Setting the webhook again makes a new one.",
        "",
      ].join("\n"),
    );
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({ actor: "cli", action: "account.webhook.set" });
  });

  it("takes --events as a comma-separated list, spaces allowed, and prints JSON with --json", async () => {
    const run = await cli(
      "accounts",
      "webhook",
      "set",
      "acme",
      receiver.url,
      "--events",
      "balance.low, key.expiring",
      "--json",
    );
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({
      account_id: "acme",
      url: receiver.url,
      events: ["balance.low", "key.expiring"],
      secret: (await store.stores.alertSettings.webhook("acme"))?.secret,
    });
    expect(printed.secret_hint).toBe(printed.secret.slice(-4));
  });

  it("refuses an unknown event type and a URL that is none, setting nothing", async () => {
    const events = await cli(
      "accounts",
      "webhook",
      "set",
      "acme",
      receiver.url,
      "--events",
      "balance.low,nope",
    );
    expect(events.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/^events must be/),
    });
    const url = await cli("accounts", "webhook", "set", "acme", "ftp://hooks.example/x");
    expect(url.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/^url must be/),
    });
    expect(await store.stores.alertSettings.webhook("acme")).toBeNull();
  });
});

describe("accounts webhook show and remove", () => {
  it("shows the webhook with its secret's hint only, or that there is none", async () => {
    expect((await cli("accounts", "webhook", "show", "acme")).stdout).toBe("Account acme has no webhook.\n");
    expect(JSON.parse((await cli("accounts", "webhook", "show", "acme", "--json")).stdout)).toEqual({
      account_id: "acme",
      webhook: null,
    });
    const { secret } = await service().setWebhook(
      "acme",
      { url: receiver.url, events: ["balance.low"] },
      ACTOR,
    );
    const shown = await cli("accounts", "webhook", "show", "acme");
    expect(shown.stdout).toBe(
      [
        `url      ${receiver.url}`,
        "events   balance.low",
        `secret   …${secret.slice(-4)}`,
        `set      ${new Date(store.clock.now()).toISOString()}`,
        "",
      ].join("\n"),
    );
    expect(shown.stdout).not.toContain(secret);
  });

  it("removes the webhook, and says when there was none", async () => {
    await service().setWebhook("acme", { url: receiver.url }, ACTOR);
    expect((await cli("accounts", "webhook", "remove", "acme")).stdout).toBe(
      "Removed the webhook of account acme.\n",
    );
    expect(await store.stores.alertSettings.webhook("acme")).toBeNull();
    expect((await cli("accounts", "webhook", "remove", "acme")).stdout).toBe(
      "Account acme had no webhook.\n",
    );
    expect(JSON.parse((await cli("accounts", "webhook", "remove", "acme", "--json")).stdout)).toEqual({
      account_id: "acme",
      removed: false,
    });
  });

  it("refuses an account that does not exist", async () => {
    expect((await cli("accounts", "webhook", "show", "ghost")).error).toMatchObject({
      code: "account_not_found",
    });
    expect((await cli("accounts", "webhook", "remove", "ghost")).error).toMatchObject({
      code: "account_not_found",
    });
  });
});

describe("accounts webhook test", () => {
  it("sends a test event and says what the endpoint answered, delivered or not, without failing", async () => {
    await service().setWebhook("acme", { url: receiver.url }, ACTOR);
    const delivered = await cli("accounts", "webhook", "test", "acme");
    expect(delivered.error).toBeNull();
    expect(delivered.stdout).toBe(`Delivered test event ${receiver.received[0]?.eventId}: HTTP 200.\n`);
    receiver.answers.push(500);
    const refused = await cli("accounts", "webhook", "test", "acme", "--json");
    expect(refused.error).toBeNull();
    expect(JSON.parse(refused.stdout)).toMatchObject({
      event_id: receiver.received[1]?.eventId,
      delivered: false,
      status_code: 500,
    });
    receiver.answers.push(502);
    expect((await cli("accounts", "webhook", "test", "acme")).stdout).toMatch(
      /^Test event evt_test_\S+ was not delivered: .+\.\n$/,
    );
  });

  it("refuses an account without a webhook", async () => {
    expect((await cli("accounts", "webhook", "test", "acme")).error).toMatchObject({
      message: "account acme has no webhook to test: set one first",
    });
  });
});

describe("accounts alerts", () => {
  it("shows the settings: no mark, no webhook, the configured thresholds", async () => {
    expect((await cli("accounts", "alerts", "acme")).stdout).toBe(
      [
        "account      acme",
        "low balance  none",
        "webhook      none",
        "thresholds   75, 100 % of a key's budget, for keys without their own",
        "",
      ].join("\n"),
    );
  });

  it("sets the low-balance mark in rubles and removes it with --no-low-balance", async () => {
    await service().setWebhook("acme", { url: receiver.url }, ACTOR);
    const set = await cli("accounts", "alerts", "acme", "--low-balance", "12.5");
    expect(set.stdout).toContain(`low balance  12.5 RUB\nwebhook      ${receiver.url}`);
    expect((await store.accounts.require("acme")).lowBalance).toBe(12_500_000);
    const cleared = await cli("accounts", "alerts", "acme", "--no-low-balance", "--json");
    expect(JSON.parse(cleared.stdout)).toMatchObject({ account_id: "acme", low_balance: null });
    expect((await store.accounts.require("acme")).lowBalance).toBeUndefined();
  });

  it("refuses a mark that is no positive amount, naming low_balance", async () => {
    const run = await cli("accounts", "alerts", "acme", "--low-balance", "-3");
    expect(run.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("low_balance"),
    });
    expect((await store.accounts.require("acme")).lowBalance).toBeUndefined();
  });
});

describe("accounts events", () => {
  it("says when the account has no events", async () => {
    await store.redis.del(store.redisKeys.events("acme"));
    expect((await cli("accounts", "events", "acme")).stdout).toBe("Account acme has no events.\n");
  });

  it("lists the events newest first as a table with each delivery, and as JSON", async () => {
    await service().setLowBalance("acme", 50, ACTOR);
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await spend(store, { accountId: "acme", keyId: record.id }, 60_000_000);
    const [claimed] = await store.stores.events.claim("acme", "worker", store.clock.now(), 60_000, 1);
    const delivery = {
      endpoint: "account",
      kind: "account",
      origin: "https://acme.example",
      status: "delivered",
      attempts: 2,
      status_code: 204,
      error: null,
      last_attempt_at: store.clock.now(),
      next_attempt_at: null,
      delivered_at: store.clock.now(),
    };
    if (claimed === undefined) throw new Error("no event to claim");
    await store.stores.events.finish("acme", claimed, JSON.stringify({ endpoints: [delivery] }), null);

    const table = (await cli("accounts", "events", "acme")).stdout.trimEnd().split("\n");
    expect(table[0]).toMatch(/^TIME \(UTC\)\s+TYPE\s+KEY\s+STATUS\s+DELIVERIES$/);
    expect(table[1]).toMatch(/^2026-11-21 10:00:00\s+balance\.low\s+queued\s*$/);
    expect(table.at(-1)).toMatch(
      new RegExp(
        `^2026-11-21 10:00:00\\s+key\\.created\\s+${record.id}\\s+delivered\\s+account delivered 204 ×2$`,
      ),
    );
    const json = JSON.parse((await cli("accounts", "events", "acme", "--limit", "1", "--json")).stdout);
    expect(json.account_id).toBe("acme");
    expect(json.events.map((event: { type: string }) => event.type)).toEqual(["balance.low"]);
  });

  it("refuses a --limit that is no whole number from 1 on as a usage error", async () => {
    for (const limit of ["0", "-1", "2.5", "ten"]) {
      const run = await cli("accounts", "events", "acme", "--limit", limit);
      expect(usageOf(run).message, limit).toBe("error: --limit must be a whole number from 1 on");
    }
  });
});
