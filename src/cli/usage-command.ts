// `tunnel-gateway usage`: an account's (or one key's) requests, tokens, cost and errors per day.

import { type Command, Option } from "commander";
import { dailyUsageView } from "../services/views.js";
import { common } from "./common.js";
import { printJson, printLines, usageCsv, usageTable } from "./output.js";
import { type CommonOptions, withSession } from "./session.js";

export function usageCommand(program: Command): void {
  common(program.command("usage"))
    .description("requests, tokens, cost and errors per day of an account (all its keys) or of one key")
    .requiredOption("--account <accountId>", "the account")
    .option("--key <keyId>", "only this key of the account")
    .option("--from <YYYY-MM-DD>", "first day (default: 29 days before --to)")
    .option("--to <YYYY-MM-DD>", "last day, in billing.timezone (default: today)")
    .addOption(new Option("--csv", "print CSV: a header line, then a line per day").conflicts("json"))
    .action(
      (
        options: CommonOptions & { account: string; key?: string; from?: string; to?: string; csv?: boolean },
      ) =>
        withSession(options, async ({ usage }) => {
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
