// `tunnel-gateway usage`: an account's (or one key's) requests, tokens, cost and errors per day; with --export,
// the account's CSV exports of the admin API (daily usage per key and model, or the kept requests).

import { type Command, Option } from "commander";
import { AccountUsageService } from "../services/account-usage.js";
import { usageCsv as accountUsageCsv, requestsCsv } from "../services/usage-csv.js";
import { dailyUsageView } from "../services/views.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { common } from "./common.js";
import { printJson, printLines, usageCsv, usageTable } from "./output.js";

export function usageCommand(program: Command): void {
  common(program.command("usage"))
    .description("requests, tokens, cost and errors per day of an account (all its keys) or of one key")
    .requiredOption("--account <accountId>", "the account")
    .option("--key <keyId>", "only this key of the account")
    .option("--from <YYYY-MM-DD>", "first day (default: 29 days before --to)")
    .option("--to <YYYY-MM-DD>", "last day, in billing.timezone (default: today)")
    .addOption(new Option("--csv", "print CSV: a header line, then a line per day").conflicts("json"))
    .addOption(
      new Option(
        "--export <what>",
        "print the account's CSV export instead: usage (a line per day, key and model) or requests (the kept requests); this month by default",
      )
        .choices(["usage", "requests"])
        .conflicts(["json", "csv", "key"]),
    )
    .action(
      (
        options: CommonOptions & {
          account: string;
          key?: string;
          from?: string;
          to?: string;
          csv?: boolean;
          export?: "usage" | "requests";
        },
      ) =>
        withServices(options, async ({ usage, stores }) => {
          if (options.export) {
            const account = new AccountUsageService(stores);
            const text =
              options.export === "usage"
                ? accountUsageCsv(await account.usageTable(options.account, options.from, options.to))
                : requestsCsv(await account.requests(options.account, options.from, options.to));
            process.stdout.write(text);
            return;
          }
          const days = await usage.daily({
            accountId: options.account,
            keyId: options.key,
            from: options.from,
            to: options.to,
          });
          if (options.json) {
            printJson({
              account_id: options.account,
              key_id: options.key ?? null,
              from: days[0]?.date,
              to: days.at(-1)?.date,
              days: days.map((day) => dailyUsageView(day.date, day.counters)),
            });
          } else if (options.csv) {
            printLines(...usageCsv(days));
          } else {
            printLines(...usageTable(days));
          }
        }),
    );
}
