// `tunnel-gateway accounts …` run in this process on the suite's Redis: what each command changes and what
// it prints, as text and with --json, and its usage errors.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accountsCommands } from "../../src/cli/accounts-commands.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const accounts = (...args: string[]) => runCli(accountsCommands, ["accounts", ...args]);

async function json(...args: string[]): Promise<any> {
  const run = await accounts(...args, "--json");
  expect(run.error).toBeNull();
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout);
}

describe("accounts create", () => {
  it("creates the account with its name and opening balance, recorded as made by the cli", async () => {
    expect(await json("create", "acme", "--name", "Acme Corp", "--balance", "4987.65")).toMatchObject({
      id: "acme",
      name: "Acme Corp",
      balance: 4987.65,
      currency: "RUB",
    });
    expect((await store.accounts.require("acme")).balance).toBe(4_987_650_000);
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry?.actor).toBe("cli");
  });

  it("prints what it created as text, with a zero balance and the id as name by default", async () => {
    const run = await accounts("create", "acme");
    expect(run.stdout).toMatch(
      /^Created account acme\.\naccount {2}acme\nname {5}acme\nbalance {2}0 RUB\ncreated {2}\S+\nsharing {2}weight 1\n$/,
    );
  });

  it("needs an account id", async () => {
    expect(usageOf(await accounts("create")).code).toBe("commander.missingArgument");
  });
});

describe("accounts topup, show and list", () => {
  it("tops up and says the new balance, shows an account, and lists every account", async () => {
    await json("create", "acme", "--balance", "10");
    expect((await accounts("topup", "acme", "2.5")).stdout).toBe(
      "Topped up account acme by 2.5 RUB; balance is now 12.5 RUB.\n",
    );
    expect((await json("show", "acme")).balance).toBe(12.5);
    await json("create", "beta", "--name", "Beta Ltd");
    expect((await accounts("list")).stdout).toBe("acme\t12.5 RUB\tacme\nbeta\t0 RUB\tBeta Ltd\n");
    expect((await json("list")).map((a: any) => a.id)).toEqual(["acme", "beta"]);
  });

  it("says when there are no accounts", async () => {
    expect((await accounts("list")).stdout).toBe("no accounts\n");
    expect(await json("list")).toEqual([]);
  });

  it("fails on a missing account with the error table's code", async () => {
    const run = await accounts("show", "ghost");
    expect(run.error).toMatchObject({ code: "account_not_found" });
    expect(run.stdout).toBe("");
  });
});

describe("accounts token", () => {
  it("issues a dashboard token shown once, and revokes it, saying whether there was one", async () => {
    await json("create", "acme");
    const issued = await accounts("token", "create", "acme");
    const token = /^ {2}(\S+)$/m.exec(issued.stdout)?.[1] ?? "";
    expect(issued.stdout).toContain("This is the only time the token is shown.");
    expect((await store.accounts.require("acme")).tokenHint).toBe(token.slice(-4));
    const viaJson = await json("token", "create", "acme");
    expect(viaJson).toEqual({ account_id: "acme", token: expect.any(String) });
    expect(viaJson.token).not.toBe(token);

    expect((await accounts("token", "revoke", "acme")).stdout).toBe(
      "Revoked the dashboard token of account acme.\n",
    );
    expect((await accounts("token", "revoke", "acme")).stdout).toBe("Account acme had no dashboard token.\n");
    expect(await json("token", "revoke", "acme")).toEqual({ account_id: "acme", revoked: false });
  });
});
