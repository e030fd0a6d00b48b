#!/usr/bin/env node
// The `tunnel-gateway` command: wires commander to the service layer and the gateway; no logic of its own.
// Exit codes: 0 success, 1 failure (one line on stderr, the error table's JSON shape with --json), 2 usage
// error. Usage is checked before the configuration is loaded or Redis is reached, so it is always exit 2;
// a command's arguments are checked by the services before their first Redis call.

import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import {
  describeAccount,
  describeKey,
  keyTable,
  printFailure,
  printJson,
  printLines,
  usageCsv,
  usageTable,
} from "./cli/output.js";
import { type CommonOptions, configFor, withSession } from "./cli/session.js";
import type { Override } from "./config/load.js";
import { accountView, dailyUsageView, keyListView, keyState, keyView } from "./services/views.js";
import type { Actor } from "./store/audit-store.js";

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;
/** Changes made with the CLI are recorded in the audit log as made by "cli". */
const CLI: Actor = { kind: "cli" };

function common(command: Command): Command {
  return command
    .option("--config <file>", "configuration file (default: config/default.yaml, or $TUNNEL_CONFIG)")
    .option("--redis <url>", "Redis URL (overrides the configuration and $TUNNEL_REDIS_URL)")
    .option("--json", "print one JSON document instead of text");
}

/** The package's version, for --version. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** serve's flags, each overriding one setting (and the TUNNEL_* variable for it). */
const SERVE_FLAGS = [
  ["--port <n>", "listen.port", "public port"],
  ["--host <address>", "listen.host", "public interface"],
  ["--metrics-port <n>", "metrics.port", "metrics port"],
  ["--admin-port <n>", "admin.port", "admin API port"],
  ["--upstream <url>", "upstream.url", "the model server's root URL"],
].map(([flags, setting, help]) => ({
  option: new Option(flags as string, `${help} (overrides ${setting})`),
  path: (setting as string).split("."),
}));

function buildProgram(): Command {
  const program = new Command("tunnel-gateway")
    .description("Metered, key-authenticated gateway in front of an OpenAI-compatible model server")
    .version(version(), "--version", "print the version")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");

  const serve = common(program.command("serve")).description("run the gateway");
  for (const { option } of SERVE_FLAGS) serve.addOption(option);
  serve.action(async (options: CommonOptions & Record<string, string | undefined>) => {
    const overrides: Override[] = [];
    for (const { option, path } of SERVE_FLAGS) {
      const value = options[option.attributeName()];
      if (value === undefined) continue;
      const typed = path.at(-1) === "port" ? numeric(value) : value;
      overrides.push({ path, value: typed, source: option.long ?? option.flags });
    }
    const loaded = configFor(options, overrides);
    // Loaded on demand: the management commands start faster without the proxy and its dependencies.
    const { runGateway } = await import("./gateway.js");
    try {
      await runGateway(loaded);
    } catch (error) {
      // Everything was closed; should a stray handle keep the process up, it must not answer a probe.
      setTimeout(() => process.exit(EXIT_FAILURE), 500).unref();
      throw error;
    }
    // Everything is closed; should a stray handle keep the process up, it must not hold the rollout back.
    setTimeout(() => process.exit(0), 2000).unref();
  });

  const accounts = program.command("accounts").description("manage accounts and their ruble balances");

  common(accounts.command("create <accountId>"))
    .description("create an account")
    .option("--name <name>", "display name (default: the id)")
    .option("--balance <rubles>", "opening balance in rubles", "0")
    .action((accountId: string, options: CommonOptions & { name?: string; balance: string }) =>
      withSession(options, async ({ accounts }) => {
        const view = accountView(
          await accounts.create({ id: accountId, name: options.name, balance: options.balance }, CLI),
        );
        if (options.json) printJson(view);
        else printLines(`Created account ${view.id}.`, ...describeAccount(view));
      }),
    );

  common(accounts.command("topup <accountId> <rubles>"))
    .description("add rubles to an account's balance")
    .action((accountId: string, rubles: string, options: CommonOptions) =>
      withSession(options, async ({ accounts }) => {
        const view = accountView(await accounts.topUp(accountId, rubles, CLI));
        if (options.json) printJson(view);
        else printLines(`Topped up account ${view.id} by ${rubles} RUB; balance is now ${view.balance} RUB.`);
      }),
    );

  common(accounts.command("show <accountId>"))
    .description("show an account and its balance")
    .action((accountId: string, options: CommonOptions) =>
      withSession(options, async ({ accounts }) => {
        const view = accountView(await accounts.show(accountId));
        if (options.json) printJson(view);
        else printLines(...describeAccount(view));
      }),
    );

  common(accounts.command("list"))
    .description("list all accounts")
    .action((options: CommonOptions) =>
      withSession(options, async ({ accounts }) => {
        const views = (await accounts.list()).map(accountView);
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
      withSession(options, async ({ accounts }) => {
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
      withSession(options, async ({ accounts }) => {
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

  const keys = program.command("keys").description("manage API keys");

  common(keys.command("create"))
    .description("create an API key (its value is printed once and never again)")
    .requiredOption("--account <accountId>", "account the key belongs to")
    .requiredOption("--name <name>", "name of the key, e.g. the environment it is for")
    .option("--budget <rubles>", "budget in rubles per period (default: no budget)")
    .addOption(
      new Option("--period <period>", "budget period (default: month)").choices(["day", "week", "month"]),
    )
    .option("--ttl <duration>", "lifetime: 15m, 2h, 30d, 1w, … or never", "never")
    .option("--models <a,b,…>", "comma-separated models the key may use (default: all)")
    .option("--no-log-bodies", "never keep request and response bodies in logs for this key")
    .action(
      (
        options: CommonOptions & {
          account: string;
          name: string;
          budget?: string;
          period?: string;
          ttl: string;
          models?: string;
          logBodies: boolean;
        },
      ) => {
        if (options.period !== undefined && options.budget === undefined)
          usageError("--period needs --budget");
        return withSession(options, async ({ keys, context }) => {
          const created = await keys.create(
            {
              accountId: options.account,
              name: options.name,
              budget: options.budget,
              period: options.period,
              ttl: options.ttl,
              models: options.models?.split(","),
              logBodies: options.logBodies,
            },
            CLI,
          );
          const view = keyView(created.record, context.now(), context.calendar);
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
              ...describeKey(view),
            );
          }
        });
      },
    );

  common(keys.command("list"))
    .description("list an account's keys, one line each: id, hint, name, state, budget, expiry")
    .requiredOption("--account <accountId>", "account whose keys to list")
    .action((options: CommonOptions & { account: string }) =>
      withSession(options, async ({ keys, context }) => {
        const records = await keys.list(options.account);
        const now = context.now();
        if (options.json) printJson(records.map((key) => keyListView(key, now, context.calendar)));
        else if (records.length === 0) printLines(`account ${options.account} has no keys`);
        else printLines(...keyTable(records, now, context.calendar));
      }),
    );

  common(keys.command("show <keyId>"))
    .description("show a key")
    .action((keyId: string, options: CommonOptions) =>
      withSession(options, async ({ keys, context }) => {
        const record = await keys.show(keyId);
        const now = context.now();
        const view = keyListView(record, now, context.calendar);
        if (options.json) printJson(view);
        else printLines(...describeKey(view, { hint: record.hint, state: keyState(record, now) }));
      }),
    );

  common(keys.command("update <keyId>"))
    .description("change a key's name, budget, period, allowed models, privacy switch or lifetime")
    .option("--name <name>", "new name")
    .option("--budget <rubles>", "new budget per period")
    .option("--no-budget", "remove the budget")
    .addOption(new Option("--period <period>", "new budget period").choices(["day", "week", "month"]))
    .option("--models <a,b,…>", "allow only these models")
    .addOption(new Option("--all-models", "allow every model").conflicts("models"))
    .option("--log-bodies", "allow request and response bodies in logs")
    .option("--no-log-bodies", "keep bodies out of logs")
    .option("--ttl <duration>", "new lifetime counted from now: 15m, 2h, 30d, 1w, … or never")
    .action(
      (
        keyId: string,
        options: CommonOptions & {
          name?: string;
          budget?: string | false;
          period?: string;
          models?: string;
          allModels?: boolean;
          logBodies?: boolean;
          ttl?: string;
        },
      ) =>
        withSession(options, async ({ keys, context }) => {
          const record = await keys.update(
            keyId,
            {
              name: options.name,
              budget: options.budget === false ? null : options.budget,
              period: options.period,
              models: options.allModels ? null : options.models?.split(","),
              logBodies: options.logBodies,
              ttl: options.ttl,
            },
            CLI,
          );
          const now = context.now();
          const view = keyListView(record, now, context.calendar);
          if (options.json) printJson(view);
          else
            printLines(
              `Updated key ${view.id}.`,
              ...describeKey(view, { hint: record.hint, state: keyState(record, now) }),
            );
        }),
    );

  common(keys.command("revoke <keyId>"))
    .description("revoke a key: every gateway replica refuses it from the next request on")
    .action((keyId: string, options: CommonOptions) =>
      withSession(options, async ({ keys, context }) => {
        const { record, alreadyRevoked } = await keys.revoke(keyId, CLI);
        const view = keyListView(record, context.now(), context.calendar);
        if (options.json) printJson(view);
        else
          printLines(
            alreadyRevoked
              ? `Key ${view.id} was already revoked at ${view.revoked_at}.`
              : `Revoked key ${view.id}.`,
          );
      }),
    );

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

  refuseRepeatedOptions(program);
  return program;
}

/**
 * Makes giving one setting twice a usage error on every command — `--budget 5 --no-budget`,
 * `--log-bodies --no-log-bodies`, `--budget 5 --budget 6` — rather than letting the last one win silently.
 */
function refuseRepeatedOptions(command: Command): void {
  const given = new Map<string, string>();
  for (const option of command.options) {
    const name = option.name();
    command.on(`option:${name}`, () => {
      const earlier = given.get(option.attributeName());
      if (earlier !== undefined) {
        const twice =
          earlier === option.flags ? "may be given only once" : `cannot be used with option '${earlier}'`;
        command.error(`error: option '${option.flags}' ${twice}`, {
          exitCode: EXIT_USAGE,
          code: "usage.repeated",
        });
      }
      given.set(option.attributeName(), option.flags);
    });
  }
  for (const sub of command.commands) refuseRepeatedOptions(sub);
}

/** Refuses the command line as commander does its own usage errors: exit 2, before anything is loaded. */
function usageError(message: string): never {
  throw new CommanderError(EXIT_USAGE, "usage", `error: ${message}`);
}

/** A number when the text is one, else the text, for the configuration schema to refuse with its name. */
function numeric(text: string): number | string {
  return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

async function main(argv: string[]): Promise<number> {
  let json = false;
  const program = buildProgram().hook("preAction", (_program, command) => {
    json = command.opts().json === true;
  });
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "usage") process.stderr.write(`${error.message}\n`);
      if (error.exitCode === 0) return 0;
      return EXIT_USAGE;
    }
    printFailure(error, json);
    return EXIT_FAILURE;
  }
}

process.exitCode = await main(process.argv);
