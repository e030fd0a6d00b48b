// `tunnel-gateway accounts sharing …` and `keys sharing …`: how an account and a key share a full model server
// (docs/fair-sharing.md) — an account's weight, priority and longest wait, a key's own priority and wait.
// Without options each shows the settings; "none" puts a setting back to its default.

import type { Command } from "commander";
import { SharingService } from "../services/sharing.js";
import { accountView, completeKeyView } from "../services/views.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common } from "./common.js";
import { printJson, printLines } from "./output.js";

interface SharingOptions extends CommonOptions {
  weight?: string;
  priority?: string;
  maxWaitMs?: string;
}

const PRIORITY = "priority its requests carry to the model server, lower first (-1000 to 1000), or none";
const MAX_WAIT = "the longest its requests wait for their turn at a full model server, in ms, or none";

/** Registers the sharing commands under the `accounts` and `keys` groups. */
export function sharingCommands(program: Command): void {
  const group = (name: string) => program.commands.find((command) => command.name() === name) as Command;

  common(group("accounts").command("sharing <accountId>"))
    .description("show or change how the account shares a full model server: weight, priority, longest wait")
    .option("--weight <n>", "its share against weight-1 accounts (1 to 1000), or none for 1")
    .option("--priority <n>", PRIORITY)
    .option("--max-wait-ms <ms>", MAX_WAIT)
    .action((accountId: string, options: SharingOptions) =>
      withServices(options, async ({ accounts, stores }) => {
        const changing = [options.weight, options.priority, options.maxWaitMs].some((v) => v !== undefined);
        const account = changing
          ? await new SharingService(stores).setAccount(
              accountId,
              { weight: options.weight, priority: options.priority, maxWaitMs: options.maxWaitMs },
              CLI,
            )
          : await accounts.show(accountId);
        const { sharing } = accountView(account, stores);
        if (options.json) printJson({ account_id: account.id, ...sharing });
        else
          printLines(
            `account   ${account.id}`,
            `weight    ${sharing.weight}`,
            `priority  ${sharing.priority ?? "none (the model server's default, 0)"}`,
            `max wait  ${sharing.max_wait_ms === null ? "queue.maxWaitMs" : `${sharing.max_wait_ms} ms`}`,
          );
      }),
    );

  common(group("keys").command("sharing <keyId>"))
    .description("show or change a key's own priority and longest wait within its account's share")
    .option("--priority <n>", `${PRIORITY}; never below its account's`)
    .option("--max-wait-ms <ms>", MAX_WAIT)
    .action((keyId: string, options: Omit<SharingOptions, "weight">) =>
      withServices(options, async ({ keys, stores }) => {
        const changing = options.priority !== undefined || options.maxWaitMs !== undefined;
        const key = changing
          ? await new SharingService(stores).setKey(
              keyId,
              { priority: options.priority, maxWaitMs: options.maxWaitMs },
              CLI,
            )
          : await keys.show(keyId);
        const { sharing } = completeKeyView(key, stores.now(), stores.calendar);
        if (options.json) printJson({ key_id: key.id, ...sharing });
        else
          printLines(
            `key       ${key.id}`,
            `priority  ${sharing.priority ?? "its account's"}`,
            `max wait  ${sharing.max_wait_ms === null ? "its account's" : `${sharing.max_wait_ms} ms`}`,
          );
      }),
    );
}
