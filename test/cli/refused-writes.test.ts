// Every creating command of the CLI, refused for a reason only the server can judge (an id taken, an
// account that does not exist or cannot pay, a malformed amount, URL or e-mail), leaves every key under the
// test's prefix exactly as it was. `users create` has its own cases in users-commands.test.ts.

import type { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { alertCommands } from "../../src/cli/alert-commands.js";
import { budgetCommands } from "../../src/cli/budget-commands.js";
import { keysCommands } from "../../src/cli/keys-commands.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { redisSnapshot } from "../helpers/redis-snapshot.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  await store.accountService.create({ id: "broke" }, ACTOR);
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

function program(root: Command): void {
  const accounts = accountsCommands(root);
  alertCommands(accounts);
  budgetCommands(accounts);
  keysCommands(root);
}

describe("a refused creation by the CLI", () => {
  it.each([
    ["an account whose id is taken", ["accounts", "create", "acme"], "account_exists"],
    [
      "an account with a malformed balance",
      ["accounts", "create", "new", "--balance", "ten"],
      "invalid_request",
    ],
    [
      "a dashboard token of an account that does not exist",
      ["accounts", "token", "create", "ghost"],
      "account_not_found",
    ],
    [
      "a key of an account that does not exist",
      ["keys", "create", "--account", "ghost", "--name", "k"],
      "account_not_found",
    ],
    [
      "a key of an account that cannot pay",
      ["keys", "create", "--account", "broke", "--name", "k"],
      "insufficient_balance",
    ],
    [
      "a key with a malformed lifetime",
      ["keys", "create", "--account", "acme", "--name", "k", "--ttl", "soon"],
      "invalid_request",
    ],
    [
      "a webhook to a URL that is not one",
      ["accounts", "webhook", "set", "acme", "not-a-url"],
      "invalid_request",
    ],
    [
      "a webhook of an account that does not exist",
      ["accounts", "webhook", "set", "ghost", "https://example.com/hook"],
      "account_not_found",
    ],
    [
      "a budget of an account that does not exist",
      ["accounts", "budget", "set", "ghost", "--budgets", "100/day"],
      "account_not_found",
    ],
  ])("refuses %s and leaves Redis exactly as it was", async (_what, args, code) => {
    const before = await redisSnapshot(store.redis, store.prefix);
    const run = await runCli(program, args);
    expect((run.error as { code?: string } | null)?.code).toBe(code);
    expect(await redisSnapshot(store.redis, store.prefix)).toEqual(before);
  });
});
