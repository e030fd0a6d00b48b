// `tunnel-gateway accounts sharing` and `keys sharing` run in this process on the suite's Redis: what they
// change, what they print as text and with --json, and what they refuse.

import type { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { keysCommands } from "../../src/cli/keys-commands.js";
import { sharingCommands } from "../../src/cli/sharing-commands.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let keyId: string;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
  keyId = (await store.keyService.create({ accountId: "acme", name: "batch" }, ACTOR)).record.id;
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const register = (program: Command) => {
  accountsCommands(program);
  keysCommands(program);
  sharingCommands(program);
};
const cli = (...args: string[]) => runCli(register, args);

describe("accounts sharing", () => {
  it("shows the defaults, then sets the weight, priority and longest wait, recorded as made by the cli", async () => {
    expect((await cli("accounts", "sharing", "acme")).stdout).toBe(
      "account   acme\nweight    1\npriority  none (the model server's default, 0)\nmax wait  queue.maxWaitMs\n",
    );
    const run = await cli(
      "accounts",
      "sharing",
      "acme",
      "--weight",
      "3",
      "--priority",
      "-1",
      "--max-wait-ms",
      "5000",
      "--json",
    );
    expect(JSON.parse(run.stdout)).toEqual({
      account_id: "acme",
      weight: 3,
      priority: -1,
      max_wait_ms: 5000,
    });
    expect(await store.accounts.require("acme")).toMatchObject({ weight: 3, priority: -1, maxWaitMs: 5000 });
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({ actor: "cli", action: "account.sharing.update" });
    expect((await cli("accounts", "sharing", "acme", "--priority", "none")).stdout).toContain(
      "priority  none (the model server's default, 0)",
    );
  });

  it("refuses a weight out of range, naming it", async () => {
    const run = await cli("accounts", "sharing", "acme", "--weight", "0");
    expect((run.error as Error).message).toMatch(/^weight must be a whole number from 1 to 1000/);
    expect((await store.accounts.require("acme")).weight).toBeUndefined();
  });
});

describe("keys sharing", () => {
  it("sets a key's own priority and wait, and refuses one more urgent than its account's", async () => {
    expect((await cli("keys", "sharing", keyId, "--priority", "4", "--max-wait-ms", "800")).stdout).toBe(
      `key       ${keyId}\npriority  4\nmax wait  800 ms\n`,
    );
    await cli("accounts", "sharing", "acme", "--priority", "5");
    const run = await cli("keys", "sharing", keyId, "--priority", "4");
    expect((run.error as Error).message).toContain(
      "a key may be made less urgent than its account, never more",
    );
    expect(JSON.parse((await cli("keys", "sharing", keyId, "--json")).stdout)).toEqual({
      key_id: keyId,
      priority: 4,
      max_wait_ms: 800,
    });
  });
});
