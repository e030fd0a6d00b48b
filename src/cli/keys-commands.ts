// `tunnel-gateway keys …`: API keys, created and rotated (the only times a value is shown), listed, changed,
// disabled and enabled, revoked.

import { type Command, Option } from "commander";
import { keyListView, keyView } from "../services/views.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common, thresholdsOption, usageError, windowsOption } from "./common.js";
import { describeKey, keyTable, printJson, printLines } from "./output.js";

export function keysCommands(program: Command): void {
  const keys = program.command("keys").description("manage API keys");

  common(keys.command("create"))
    .description("create an API key (its value is printed once and never again)")
    .requiredOption("--account <accountId>", "account the key belongs to")
    .requiredOption("--name <name>", "name of the key, e.g. the environment it is for")
    .option("--budget <rubles>", "budget in rubles per period (default: no budget)")
    .addOption(
      new Option("--period <period>", "budget period (default: month)").choices(["day", "week", "month"]),
    )
    .addOption(
      new Option(
        "--budgets <windows>",
        "several budget windows, comma-separated, each period once: 100/day,2000/month (up to three)",
      ).conflicts(["budget", "period"]),
    )
    .option("--ttl <duration>", "lifetime: 15m, 2h, 30d, 1w, … or never", "never")
    .option("--models <a,b,…>", "comma-separated models the key may use (default: all)")
    .option("--no-log-bodies", "never keep request and response bodies in logs for this key")
    .option("--rpm <n>", "at most n requests per minute (default: no limit)")
    .option("--tpm <n>", "at most n tokens (prompt + completion) per minute (default: no limit)")
    .option("--max-parallel <n>", "at most n requests in flight at once (default: no limit)")
    .option(
      "--alert-at <percents>",
      "budget alert thresholds, such as 50,80,100 (default: alerts.thresholds)",
    )
    .addOption(new Option("--no-alerts", "no budget alerts for this key").conflicts("alertAt"))
    .action(
      (
        options: CommonOptions & {
          account: string;
          name: string;
          budget?: string;
          period?: string;
          budgets?: string;
          ttl: string;
          models?: string;
          logBodies: boolean;
          alertAt?: string;
          alerts: boolean;
        } & LimitOptions,
      ) => {
        if (options.period !== undefined && options.budget === undefined)
          usageError("--period needs --budget");
        return withServices(options, async ({ keys, stores }) => {
          const created = await keys.create(
            {
              accountId: options.account,
              name: options.name,
              budget: options.budget,
              period: options.period,
              budgets: windowsOption(options.budgets),
              ttl: options.ttl,
              models: options.models?.split(","),
              logBodies: options.logBodies,
              ...limitInputs(options),
              alertAt: options.alerts ? thresholdsOption(options.alertAt) : [],
            },
            CLI,
          );
          const view = keyView(created.record, stores.now(), stores.calendar);
          if (options.json) {
            printJson({ ...view, key: created.value });
          } else {
            printLines(
              `Created key ${view.id} for account ${view.account_id}:`,
              "",
              `  ${created.value}`,
              "",
              "This is the only time the key is shown. Store it now: it cannot be recovered.",
              "",
              ...describeKey(view, created.record.hint),
            );
          }
        });
      },
    );

  common(keys.command("list"))
    .description("list an account's keys, one line each: id, hint, name, state, budget, expiry")
    .requiredOption("--account <accountId>", "account whose keys to list")
    .action((options: CommonOptions & { account: string }) =>
      withServices(options, async ({ keys, stores }) => {
        const records = await keys.list(options.account);
        const now = stores.now();
        if (options.json) printJson(records.map((key) => keyListView(key, now, stores.calendar)));
        else if (records.length === 0) printLines(`account ${options.account} has no keys`);
        else printLines(...keyTable(records, now, stores.calendar));
      }),
    );

  common(keys.command("show <keyId>"))
    .description("show a key")
    .action((keyId: string, options: CommonOptions) =>
      withServices(options, async ({ keys, stores }) => {
        const record = await keys.show(keyId);
        const now = stores.now();
        const view = keyListView(record, now, stores.calendar);
        if (options.json) printJson(view);
        else printLines(...describeKey(view, record.hint));
      }),
    );

  common(keys.command("update <keyId>"))
    .description(
      "change a key's name, budget, period, budget windows, allowed models, privacy switch, lifetime or limits",
    )
    .option("--name <name>", "new name")
    .option("--budget <rubles>", "new budget per period")
    .option("--no-budget", "remove the budget (every window)")
    .addOption(new Option("--period <period>", "new budget period").choices(["day", "week", "month"]))
    .addOption(
      new Option(
        "--budgets <windows>",
        "every budget window, replacing the key's: 100/day,2000/month (up to three, each period once)",
      ).conflicts(["budget", "period"]),
    )
    .option("--models <a,b,…>", "allow only these models")
    .addOption(new Option("--all-models", "allow every model").conflicts("models"))
    .option("--log-bodies", "allow request and response bodies in logs")
    .option("--no-log-bodies", "keep bodies out of logs")
    .option("--ttl <duration>", "new lifetime counted from now: 15m, 2h, 30d, 1w, … or never")
    .option("--rpm <n>", "new limit of requests per minute")
    .option("--no-rpm", "remove the limit of requests per minute")
    .option("--tpm <n>", "new limit of tokens per minute")
    .option("--no-tpm", "remove the limit of tokens per minute")
    .option("--max-parallel <n>", "new limit of requests in flight at once")
    .option("--no-max-parallel", "remove the limit of requests in flight")
    .option(
      "--alert-at <percents>",
      "budget alert thresholds, such as 50,80,100, or default (alerts.thresholds)",
    )
    .addOption(new Option("--no-alerts", "no budget alerts for this key").conflicts("alertAt"))
    .action(
      (
        keyId: string,
        options: CommonOptions & {
          name?: string;
          budget?: string | false;
          period?: string;
          budgets?: string;
          models?: string;
          allModels?: boolean;
          logBodies?: boolean;
          ttl?: string;
          alertAt?: string;
          alerts?: boolean;
        } & LimitOptions,
      ) =>
        withServices(options, async ({ keys, stores }) => {
          const record = await keys.update(
            keyId,
            {
              name: options.name,
              budget: options.budget === false ? null : options.budget,
              period: options.period,
              budgets: windowsOption(options.budgets),
              models: options.allModels ? null : options.models?.split(","),
              logBodies: options.logBodies,
              ttl: options.ttl,
              ...limitInputs(options),
              alertAt: options.alerts === false ? [] : thresholdsOption(options.alertAt),
            },
            CLI,
          );
          const view = keyListView(record, stores.now(), stores.calendar);
          if (options.json) printJson(view);
          else printLines(`Updated key ${view.id}.`, ...describeKey(view, record.hint));
        }),
    );

  common(keys.command("rotate <keyId>"))
    .description("give a key a new value (printed once); the old one keeps working for the grace period")
    .option("--grace <duration>", "how long the old value keeps working: 0, or 30m, 24h, … up to 7d", "0")
    .action((keyId: string, options: CommonOptions & { grace: string }) =>
      withServices(options, async ({ keys, stores }) => {
        const rotated = await keys.rotate(keyId, options.grace, CLI);
        const view = keyListView(rotated.record, stores.now(), stores.calendar);
        if (options.json) {
          printJson({ ...view, key: rotated.value });
        } else {
          printLines(
            `Rotated key ${view.id}; its new value:`,
            "",
            `  ${rotated.value}`,
            "",
            "This is the only time the value is shown. Store it now: it cannot be recovered.",
            view.grace_until === null
              ? "The old value stopped working now."
              : `The old value keeps working until ${view.grace_until}.`,
            "",
            ...describeKey(view, rotated.record.hint),
          );
        }
      }),
    );

  for (const [command, disable] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    common(keys.command(`${command} <keyId>`))
      .description(
        disable
          ? "disable a key for a while: refused with key_disabled, everything else kept (unlike revoke)"
          : "enable a disabled key again",
      )
      .action((keyId: string, options: CommonOptions) =>
        withServices(options, async ({ keys, stores }) => {
          const { record, changed } = await keys.setDisabled(keyId, disable, CLI);
          const view = keyListView(record, stores.now(), stores.calendar);
          if (options.json) printJson(view);
          else if (!changed) printLines(`Key ${view.id} was already ${command}d.`);
          else
            printLines(
              `${disable ? "Disabled" : "Enabled"} key ${view.id}.`,
              ...describeKey(view, record.hint),
            );
        }),
      );
  }

  common(keys.command("revoke <keyId>"))
    .description("revoke a key: every gateway replica refuses it from the next request on")
    .action((keyId: string, options: CommonOptions) =>
      withServices(options, async ({ keys, stores }) => {
        const { record, alreadyRevoked } = await keys.revoke(keyId, CLI);
        const view = keyListView(record, stores.now(), stores.calendar);
        if (options.json) printJson(view);
        else
          printLines(
            alreadyRevoked
              ? `Key ${view.id} was already revoked at ${view.revoked_at}.`
              : `Revoked key ${view.id}.`,
          );
      }),
    );
}

/** The limit flags of `keys create` and `keys update`; false where --no-<limit> removes one. */
interface LimitOptions {
  rpm?: string | false;
  tpm?: string | false;
  maxParallel?: string | false;
}

/** The limit flags as the key service takes them: text to validate, null to remove, undefined to keep. */
function limitInputs(options: LimitOptions) {
  const input = (value: string | false | undefined) => (value === false ? null : value);
  return { rpm: input(options.rpm), tpm: input(options.tpm), maxParallel: input(options.maxParallel) };
}
