// `tunnel-gateway accounts webhook …`, `accounts alerts …` and `accounts events …`: an account's own webhook
// (its signing secret printed once, when it is set), its low-balance mark, and its recent alert events with
// each delivery's outcome.

import type { Command } from "commander";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common, usageError } from "./common.js";
import { formatTable, printJson, printLines } from "./output.js";

export function alertCommands(accounts: Command): void {
  const webhook = accounts.command("webhook").description("manage an account's own alert webhook");

  common(webhook.command("set <accountId> <url>"))
    .description("set or replace the account's webhook; its new signing secret is printed once")
    .option("--events <a,b,…>", "event types to send, such as budget.threshold,balance.low (default: all)")
    .action((accountId: string, url: string, options: CommonOptions & { events?: string }) =>
      withServices(options, async ({ alerts }) => {
        const { webhook: view, secret } = await alerts.setWebhook(
          accountId,
          { url, events: options.events?.split(",").map((type) => type.trim()) },
          CLI,
        );
        if (options.json) printJson({ account_id: accountId, ...view, secret });
        else
          printLines(
            `Webhook of account ${accountId} set: ${view.url}`,
            `events   ${view.events?.join(", ") ?? "all"}`,
            "",
            "Signing secret (verify X-Tunnel-Signature with it; see docs/alerts-and-webhooks.md):",
            "",
            `  ${secret}`,
            "",
            "This is the only time the secret is shown. Setting the webhook again makes a new one.",
          );
      }),
    );

  common(webhook.command("show <accountId>"))
    .description("show the account's webhook (never its secret)")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ alerts }) => {
        const view = (await alerts.show(accountId)).webhook;
        if (options.json) printJson({ account_id: accountId, webhook: view });
        else if (view === null) printLines(`Account ${accountId} has no webhook.`);
        else
          printLines(
            `url      ${view.url}`,
            `events   ${view.events?.join(", ") ?? "all"}`,
            `secret   …${view.secret_hint}`,
            `set      ${view.created_at}`,
          );
      }),
    );

  common(webhook.command("remove <accountId>"))
    .description("remove the account's webhook")
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ alerts }) => {
        const removed = await alerts.removeWebhook(accountId, CLI);
        if (options.json) printJson({ account_id: accountId, removed });
        else
          printLines(
            removed ? `Removed the webhook of account ${accountId}.` : `Account ${accountId} had no webhook.`,
          );
      }),
    );

  common(webhook.command("test <accountId>"))
    .description(
      "send a test event (webhook.test) to the account's webhook and show what it answered (exit 0 either way)",
    )
    .action((accountId: string, options: CommonOptions) =>
      withServices(options, async ({ alerts }) => {
        const result = await alerts.testWebhook(accountId);
        if (options.json) printJson(result);
        else
          printLines(
            result.delivered
              ? `Delivered test event ${result.event_id}: HTTP ${result.status_code}.`
              : `Test event ${result.event_id} was not delivered: ${result.error}.`,
          );
      }),
    );

  common(accounts.command("alerts <accountId>"))
    .description("show the account's alert settings, or change its low-balance mark")
    .option("--low-balance <rubles>", "send balance.low when the balance falls below this many rubles")
    .option("--no-low-balance", "remove the low-balance mark")
    .action((accountId: string, options: CommonOptions & { lowBalance?: string | false }) =>
      withServices(options, async ({ alerts }) => {
        const view =
          options.lowBalance === undefined
            ? await alerts.show(accountId)
            : await alerts.setLowBalance(
                accountId,
                options.lowBalance === false ? null : options.lowBalance,
                CLI,
              );
        if (options.json) printJson(view);
        else
          printLines(
            `account      ${view.account_id}`,
            `low balance  ${view.low_balance === null ? "none" : `${view.low_balance} ${view.currency}`}`,
            `webhook      ${view.webhook ? view.webhook.url : "none"}`,
            `thresholds   ${view.default_thresholds.join(", ")} % of a key's budget, for keys without their own`,
          );
      }),
    );

  common(accounts.command("events <accountId>"))
    .description("the account's recent alert events, newest first, with each delivery's outcome")
    .option("--limit <n>", "how many", "20")
    .action((accountId: string, options: CommonOptions & { limit: string }) => {
      if (!/^[1-9]\d*$/.test(options.limit)) usageError("--limit must be a whole number from 1 on");
      return withServices(options, async ({ alerts }) => {
        const events = await alerts.events(accountId, Number(options.limit), true);
        if (options.json) {
          printJson({ account_id: accountId, events });
          return;
        }
        if (events.length === 0) {
          printLines(`Account ${accountId} has no events.`);
          return;
        }
        const rows = events.map((event) => [
          event.created_at.slice(0, 19).replace("T", " "),
          event.type,
          event.key_id ?? "",
          event.status,
          event.deliveries
            .map(
              (d) =>
                `${d.endpoint} ${d.status}${d.status_code === null ? "" : ` ${d.status_code}`} ×${d.attempts}`,
            )
            .join("; "),
        ]);
        printLines(...formatTable(["TIME (UTC)", "TYPE", "KEY", "STATUS", "DELIVERIES"], rows));
      });
    });
}
