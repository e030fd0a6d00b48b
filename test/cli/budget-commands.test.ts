// `tunnel-gateway accounts budgets …` run in this process on the suite's Redis: an account's own windows and
// how it pays, named as the admin API names them; the old spelling `accounts budget …` still answering, with
// a notice on stderr, and hidden from the help.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { budgetCommands } from "../../src/cli/budget-commands.js";
import { DEPRECATED_NAMES, REMOVED_IN } from "../../src/core/deprecated-names.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  await store.accountService.create({ id: "teamco", balance: "0" }, { kind: "cli" });
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const cli = (...args: string[]) =>
  runCli((program) => budgetCommands(accountsCommands(program)), ["accounts", ...args]);

const SET = ["teamco", "--budgets", "10000/day,300000/month", "--billing", "budgeted", "--alert-at", "50,90"];

describe("accounts budgets", () => {
  it("set gives the account its windows, its mode and their thresholds, and prints it as accounts show does", async () => {
    const run = await cli("budgets", "set", ...SET, "--json");
    expect(run.error).toBeNull();
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: "teamco",
      billing: "budgeted",
      budgets: [
        { period: "day", amount: 10000, spent: 0, remaining: 10000 },
        { period: "month", amount: 300000, spent: 0, remaining: 300000 },
      ],
      alert_at: [50, 90],
    });
    const stored = await store.accounts.require("teamco");
    expect(stored.budgets.map((window) => [window.period, window.budget])).toEqual([
      ["day", 10_000_000_000],
      ["month", 300_000_000_000],
    ]);
    expect(stored.alertAt).toEqual([50, 90]);
  });

  it("clear makes the account prepaid again, without windows", async () => {
    await cli("budgets", "set", ...SET);
    const run = await cli("budgets", "clear", "teamco");
    expect(run.error).toBeNull();
    expect(run.stdout).toMatch(/^Account teamco is prepaid, without budgets of its own\.\n/);
    expect(await store.accounts.require("teamco")).toMatchObject({ billing: "prepaid", budgets: [] });
  });
});

describe("the old spelling, accounts budget …", () => {
  const old = DEPRECATED_NAMES.filter((name) => name.surface === "cli");

  it("is every deprecated command the list names", () => {
    expect(old.map(({ old, now }) => [old, now])).toEqual([
      ["accounts budget set", "accounts budgets set"],
      ["accounts budget clear", "accounts budgets clear"],
    ]);
  });

  it("does what the new one does, and says on stderr what to use instead and when it goes", async () => {
    for (const { old: spelling, now } of old) {
      const args = spelling.split(" ").slice(1);
      const extra = args.at(-1) === "set" ? SET : ["teamco"];
      const before = await cli(...now.split(" ").slice(1), ...extra, "--json");
      const after = await cli(...args, ...extra, "--json");
      expect(after.error).toBeNull();
      expect(after.stderr).toBe(
        `warning: \`${spelling}\` is deprecated and goes away in ${REMOVED_IN}: use \`${now}\`\n`,
      );
      expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
    }
  });

  it("is left out of the help, where the new one is listed", async () => {
    const run = await cli("--help");
    expect(run.stdout).toMatch(/^ {2}budgets +set an account's own budgets/m);
    expect(run.stdout).not.toMatch(/^ {2}budget /m);
  });
});
