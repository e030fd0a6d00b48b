// `tunnel-gateway accounts …`: accounts, their balances and their dashboard tokens.

import type { Command } from "commander";
import { accountView } from "../services/views.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common } from "./common.js";
import { describeAccount, printJson, printLines } from "./output.js";

/** Registers `accounts …`; returns the group, for the alert commands to join it. */
export function accountsCommands(program: Command): Command {
  const accounts = program.command("accounts").description("manage accounts and their ruble balances");

  common(accounts.command("create <accountId>"))
    .description("create an account")
    .option("--name <name>", "display name (default: the id)")
    .option("--balance <rubles>", "opening balance in rubles", "0")
    .action((accountId: string, options: CommonOptions & { name?: string; balance: string }) =>
      withServices(options, async ({ accounts, stores }) => {
        const view = accountView(
          await accounts.create({ id: accountId, name: options.name, balance: options.balance }, CLI),
          stores,
        );
        if (options.json) printJson(view);
        else printLines(`Created account ${view.id}.`, ...describeAccount(view));
      }),
    );

  common(accounts.command("topup <accountId> <rubles>"))
    .description("add rubles to an account's balance")
    .action((accountId: string, rubles: string, options: CommonOptions) =>
      withServices(options, async ({ accounts, stores }) => {
        const view = accountView(await accounts.topUp(accountId, rubles, CLI), stores);
        if (options.json) printJson(view);
        else printLines(`Topped up account ${view.id} by ${rubles} RUB; balance is now ${view.balance} RUB.`);
      }),
    );

  common(accounts.command("show <accountId>"))
    .description("show an account and its balance")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ accounts, stores }) => {
        const view = accountView(await accounts.show(accountId), stores);
        if (options.json) printJson(view);
        else printLines(...describeAccount(view));
      }),
    );

  common(accounts.command("list"))
    .description("list all accounts")
    .action((options: CommonOptions) =>
      withServices(options, async ({ accounts, stores }) => {
        const views = (await accounts.list()).map((account) => accountView(account, stores));
        if (options.json) printJson(views);
        else
          printLines(
            ...(views.length
              ? views.map((a) => `${a.id}\t${a.balance} ${a.currency}\t${a.name}`)
              : ["no accounts"]),
          );
      }),
    );

  const tokens = accounts.command("token").description("manage an account's dashboard token");

  common(tokens.command("create <accountId>"))
    .description("issue the account's dashboard token (replacing any previous one); printed once")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ accounts }) => {
        const { account, token } = await accounts.createToken(accountId, CLI);
        if (options.json) printJson({ account_id: account.id, token });
        else
          printLines(
            `Dashboard token for account ${account.id}:`,
            "",
            `  ${token}`,
            "",
            "This is the only time the token is shown. It lets its holder manage this account's keys.",
          );
      }),
    );

  common(tokens.command("revoke <accountId>"))
    .description("revoke the account's dashboard token")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ accounts }) => {
        const revoked = await accounts.revokeToken(accountId, CLI);
        if (options.json) printJson({ account_id: accountId, revoked });
        else
          printLines(
            revoked
              ? `Revoked the dashboard token of account ${accountId}.`
              : `Account ${accountId} had no dashboard token.`,
          );
      }),
    );
  return accounts;
}
