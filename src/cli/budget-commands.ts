// `tunnel-gateway accounts budgets …`: how an account pays (prepaid, budgeted, both) and its own budget
// windows, which every key of the account shares (docs/billing.md, "Account budgets"). Named as the admin
// API names them (PUT …/budgets with budgets, billing and alert_at); the old spelling `accounts budget …`
// still works, hidden, with a notice on stderr, until it goes (core/deprecated-names.ts).

import { type Command, Option } from "commander";
import { BILLING_MODES } from "../core/budget-windows.js";
import { deprecationNotice } from "../core/deprecated-names.js";
import { accountView } from "../services/views.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common, thresholdsOption, windowsOption } from "./common.js";
import { describeAccount, printJson, printLines } from "./output.js";

export function budgetCommands(accounts: Command): void {
  budgetsGroup(accounts.command("budgets"));
  budgetsGroup(accounts.command("budget", { hidden: true }), "accounts budget");
}

/** The group's commands; under an old name, each writes a deprecation notice on stderr before it runs. */
function budgetsGroup(group: Command, oldName?: string): void {
  group.description("set an account's own budgets and how it pays");
  const command = (name: string) => {
    const sub = common(group.command(`${name} <accountId>`));
    if (oldName !== undefined) {
      sub.hook("preAction", () => {
        process.stderr.write(`${deprecationNotice(`${oldName} ${name}`, `accounts budgets ${name}`)}\n`);
      });
    }
    return sub;
  };

  command("set")
    .description(
      "give the account budget windows for all its keys together; budgeted accounts need no balance",
    )
    .option(
      "--budgets <windows>",
      "the account's windows, comma-separated: 300000/month or 10000/day,300000/month",
    )
    .addOption(
      new Option(
        "--billing <mode>",
        "prepaid (the balance limits the keys), budgeted (the windows alone do), both (default with budgets: both, or as it is)",
      ).choices([...BILLING_MODES]),
    )
    .option("--alert-at <percents>", "alert thresholds of the windows, such as 50,80,100, or default")
    .addOption(new Option("--no-alerts", "no alerts for the account's windows").conflicts("alertAt"))
    .action(
      (
        accountId: string,
        options: CommonOptions & { budgets?: string; billing?: string; alertAt?: string; alerts?: boolean },
      ) =>
        withServices(options, async ({ budgets, stores }) => {
          const account = await budgets.setAccountBudgets(
            accountId,
            {
              billing: options.billing,
              budgets: windowsOption(options.budgets),
              alertAt: options.alerts === false ? [] : thresholdsOption(options.alertAt),
            },
            CLI,
          );
          const view = accountView(account, stores);
          if (options.json) printJson(view);
          else printLines(`Updated the budgets of account ${view.id}.`, ...describeAccount(view));
        }),
    );

  command("clear")
    .description("remove the account's own windows: it is prepaid again, limited by its balance")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ budgets, stores }) => {
        const account = await budgets.setAccountBudgets(accountId, { billing: "prepaid", budgets: [] }, CLI);
        const view = accountView(account, stores);
        if (options.json) printJson(view);
        else
          printLines(`Account ${view.id} is prepaid, without budgets of its own.`, ...describeAccount(view));
      }),
    );
}
