// `tunnel-gateway keys …` run in this process on the suite's Redis: a key's value printed once, the list
// as a table, changes and revocation, and the usage errors caught before Redis is reached.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keysCommands } from "../../src/cli/keys-commands.js";
import { freePort } from "../../src/demo/redis-server.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const keys = (...args: string[]) => runCli(keysCommands, ["keys", ...args]);

async function json(...args: string[]): Promise<any> {
  const run = await keys(...args, "--json");
  expect(run.error).toBeNull();
  return JSON.parse(run.stdout);
}

describe("keys create", () => {
  it("creates a key with every option, printing its value with the client's view of it", async () => {
    const created = await json(
      ...["create", "--account", "acme", "--name", "prod", "--budget", "5", "--period", "week"],
      ...["--ttl", "30d", "--models", "a,b", "--no-log-bodies"],
    );
    expect(created).toMatchObject({
      account_id: "acme",
      name: "prod",
      allowed_models: ["a", "b"],
      log_bodies: false,
      budgets: [{ period: "week", amount: 5 }],
      expires_at: expect.any(String),
    });
    expect(created.key).toMatch(/^sk-tunnel-/);
    const stored = await store.keyService.show(created.id);
    expect(stored).toMatchObject({
      logBodies: false,
      allowedModels: ["a", "b"],
      budget: 5_000_000,
      period: "week",
    });
    expect(created.key.endsWith(stored.hint)).toBe(true);
  });

  it("shows the value once in text, with the warning that it cannot be recovered", async () => {
    const run = await keys("create", "--account", "acme", "--name", "dev");
    expect(run.stdout).toMatch(
      /^Created key key_\w+ for account acme:\n\n {2}sk-tunnel-\S+\n\nThis is the only time the key is shown\. Store it now: it cannot be recovered\.\n\n/,
    );
    expect(run.stdout).toContain("budget   none");
  });

  it("refuses --period without --budget, and a period it does not know, before Redis is reached", async () => {
    vi.stubEnv("TUNNEL_REDIS_URL", `redis://127.0.0.1:${await freePort()}`);
    const period = await keys("create", "--account", "acme", "--name", "k", "--period", "week");
    expect(usageOf(period)).toMatchObject({ exitCode: 2, message: "error: --period needs --budget" });
    const unknown = await keys(
      "create",
      "--account",
      "acme",
      "--name",
      "k",
      "--budget",
      "1",
      "--period",
      "year",
    );
    expect(usageOf(unknown).code).toBe("commander.invalidArgument");
    const missing = await keys("create", "--name", "k");
    expect(usageOf(missing).code).toBe("commander.missingMandatoryOptionValue");
  });
});

describe("keys list and show", () => {
  it("lists an account's keys as a table or JSON, and says when it has none", async () => {
    expect((await keys("list", "--account", "acme")).stdout).toBe("account acme has no keys\n");
    const a = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    const b = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    await store.keyService.revoke(b.record.id, ACTOR);
    const lines = (await keys("list", "--account", "acme")).stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+HINT\s+NAME\s+STATE\s+LIMITS\s+BUDGET SPENT\/LIMIT\s+EXPIRES$/);
    expect(lines).toHaveLength(3);
    const lineOf = (id: string) => lines.find((line) => line.startsWith(`${id}  `));
    expect(lineOf(a.record.id)).toMatch(new RegExp(`^${a.record.id}  …${a.record.hint}  prod  active `));
    expect(lineOf(b.record.id)).toMatch(new RegExp(`^${b.record.id}  …${b.record.hint}  prod  revoked`));
    const listed = await json("list", "--account", "acme");
    expect(listed.map((k: any) => k.revoked_at === null)).toContain(false);
  });

  it("shows a key with its hint and state", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    const text = (await keys("show", record.id)).stdout;
    expect(text).toContain(`key      ${record.id} (…${record.hint})`);
    expect(text).toContain("state    active");
    expect((await json("show", record.id)).revoked_at).toBeNull();
  });
});

describe("keys update", () => {
  it("changes name, budget, models, privacy and lifetime, and removes limits with --no-budget and --all-models", async () => {
    const { record } = await store.keyService.create(
      { accountId: "acme", name: "prod", models: ["a"] },
      ACTOR,
    );
    const before = Date.now();
    const changed = await json(
      ...["update", record.id, "--name", "renamed", "--budget", "3", "--period", "day"],
      ...["--log-bodies", "--ttl", "1d"],
    );
    const after = Date.now();
    expect(changed).toMatchObject({
      name: "renamed",
      budgets: [{ amount: 3, period: "day" }],
      log_bodies: true,
      allowed_models: ["a"],
    });
    // The new lifetime counts from now.
    const expires = Date.parse(changed.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(expires).toBeLessThanOrEqual(after + 86_400_000);
    const cleared = await json("update", record.id, "--no-budget", "--all-models", "--no-log-bodies");
    expect(cleared).toMatchObject({ budget: null, allowed_models: null, log_bodies: false });
    expect((await keys("update", record.id, "--name", "x")).stdout).toMatch(/^Updated key key_\w+\.\n/);
  });

  it("refuses contradictory options as usage errors", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    expect(usageOf(await keys("update", record.id, "--budget", "1", "--no-budget")).code).toBe(
      "usage.repeated",
    );
    expect(usageOf(await keys("update", record.id, "--log-bodies", "--no-log-bodies")).code).toBe(
      "usage.repeated",
    );
    expect(usageOf(await keys("update", record.id, "--models", "a", "--all-models")).code).toBe(
      "commander.conflictingOption",
    );
    expect((await store.keyService.show(record.id)).budget).toBeNull();
  });
});

describe("keys revoke", () => {
  it("revokes a key, and says when it was revoked already", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "prod" }, ACTOR);
    expect((await keys("revoke", record.id)).stdout).toBe(`Revoked key ${record.id}.\n`);
    const again = await keys("revoke", record.id);
    expect(again.stdout).toMatch(
      new RegExp(`^Key ${record.id} was already revoked at \\d{4}-\\d\\d-\\d\\dT`),
    );
    expect((await json("revoke", record.id)).revoked_at).toEqual(expect.any(String));
  });
});
