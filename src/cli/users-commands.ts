// `tunnel-gateway users …`: people who sign in with a local password (and everyone else, listed). A password is
// never given on the command line, where it would stay in the shell's history and the process list: the
// command prints a one-time set-password link to send the person, or reads the password from standard input
// with --password-stdin. `users create --operator` is how the first operator gets in (docs/sign-in.md).

import { type Command, Option } from "commander";
import type { OperatorRole } from "../core/roles.js";
import type { UserRecord } from "../store/people/user-record.js";
import { type CommandServices, type CommonOptions, withServices } from "./command-services.js";
import { CLI, common, usageError } from "./common.js";
import { formatTable, printJson, printLines } from "./output.js";

/** Loaded by the commands that use them, so that `serve` loads none of the sign-in (argon2, openid-client). */
const peopleViews = () => import("../admin/people-views.js");

interface PasswordOptions {
  passwordStdin?: boolean;
}

/** The password piped in: everything on standard input, less one trailing line break. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Sets the password from standard input, or makes a set-password link; the lines saying which. */
async function passwordOrLink(services: CommandServices, user: UserRecord, options: PasswordOptions) {
  if (options.passwordStdin) {
    await services.identity.users.setPassword(user.id, await readPassword(), CLI);
    return { link: null, lines: [`Password set for ${user.email}.`] };
  }
  return passwordLink(services, user);
}

/** A one-time set-password link for the user; the lines to print with it. */
async function passwordLink(services: CommandServices, user: UserRecord) {
  const { identity, dashboardUrl } = services;
  const link = await identity.passwords.passwordLink(user.id, dashboardUrl);
  const hours = identity.settings.passwordLinkMs / 3_600_000;
  const lines = [
    `Send ${user.email} this link to set their password (it works once, for ${hours} hours):`,
    "",
    `  ${link}`,
  ];
  if (!identity.settings.localUsers)
    lines.push(
      "",
      "Password sign-in is off: set signIn.local.enabled (TUNNEL_SIGN_IN_LOCAL=true) for it to work.",
    );
  return { link, lines };
}

export function usersCommands(program: Command): void {
  const users = program
    .command("users")
    .description("manage people who sign in to the dashboard and admin API");

  common(users.command("create"))
    .description(
      "create a user; prints a one-time link to set their password (or reads it with --password-stdin)",
    )
    .requiredOption("--email <email>", "their e-mail, which they sign in with")
    .option("--name <name>", "display name (default: the e-mail)")
    .addOption(new Option("--operator", "give them the operator role: everything on every account"))
    .addOption(
      new Option("--operator-viewer", "give them the operator-viewer role: read every account").conflicts(
        "operator",
      ),
    )
    .option("--account <accountId>", "make them a member of this account (with --role)")
    .addOption(new Option("--role <role>", "their role in --account").choices(["owner", "member", "viewer"]))
    .option("--password-stdin", "read the password from standard input instead of printing a link")
    .action(
      (
        options: CommonOptions &
          PasswordOptions & {
            email: string;
            name?: string;
            operator?: boolean;
            operatorViewer?: boolean;
            account?: string;
            role?: string;
          },
      ) => {
        if ((options.account === undefined) !== (options.role === undefined))
          usageError("--account and --role go together");
        const operatorRole: OperatorRole | null = options.operator
          ? "operator"
          : options.operatorViewer
            ? "operator-viewer"
            : null;
        return withServices(options, async (services) => {
          const { userView } = await peopleViews();
          const account =
            options.account === undefined ? undefined : { accountId: options.account, role: options.role };
          // Read first and given to the creation, which checks it before writing anything: a weak password
          // refuses the user rather than leaving one without it.
          const password = options.passwordStdin ? await readPassword() : undefined;
          const user = await services.identity.users.create(
            {
              email: options.email,
              name: options.name,
              operatorRole,
              ...(account && { account }),
              ...(password !== undefined && { password }),
            },
            CLI,
          );
          const { link, lines } =
            password === undefined
              ? await passwordLink(services, user)
              : { link: null, lines: [`Password set for ${user.email}.`] };
          if (options.json) printJson({ ...userView(user), set_password_url: link });
          else printLines(`Created user ${user.email} (${user.id}).`, ...lines);
        });
      },
    );

  common(users.command("list"))
    .description("list every user: e-mail, status, operator role, how they sign in")
    .action((options: CommonOptions) =>
      withServices(options, async ({ identity }) => {
        const { userView } = await peopleViews();
        const views = (await identity.users.list()).map(userView);
        if (options.json) printJson(views);
        else if (views.length === 0) printLines("no users");
        else
          printLines(
            ...formatTable(
              ["id", "email", "name", "status", "operator", "signs in with"],
              views.map((u) => [
                u.id,
                u.email,
                u.name,
                u.status,
                u.operator_role ?? "-",
                [...(u.password ? ["password"] : []), ...u.providers].join(", ") || "-",
              ]),
            ),
          );
      }),
    );

  for (const [name, disable] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    common(users.command(`${name} <user>`))
      .description(
        disable
          ? "disable a user (id or e-mail): their sessions end, their API tokens stop, sign-in is refused"
          : "enable a disabled user (id or e-mail)",
      )
      .action((who: string, options: CommonOptions) =>
        withServices(options, async ({ identity }) => {
          const { userView } = await peopleViews();
          const user = await identity.users.find(who);
          const changed = disable
            ? await identity.users.disable(user.id, CLI)
            : await identity.users.enable(user.id, CLI);
          if (options.json) printJson(userView(changed));
          else printLines(`${disable ? "Disabled" : "Enabled"} user ${changed.email} (${changed.id}).`);
        }),
      );
  }

  common(users.command("unlock <user>"))
    .description(
      "lift the sign-in lock on a user (id or e-mail) after too many failed passwords: their failures are forgotten",
    )
    .action((who: string, options: CommonOptions) =>
      withServices(options, async ({ identity }) => {
        const user = await identity.users.find(who);
        const unlocked = await identity.passwords.unlock(user, CLI);
        if (options.json) printJson({ user_id: user.id, email: user.email, unlocked });
        else
          printLines(
            unlocked
              ? `Unlocked sign-in for ${user.email}.`
              : `${user.email} was not locked out; nothing to do.`,
          );
      }),
    );

  common(users.command("link <user>"))
    .description(
      "let a user (id or e-mail) who signs in another way be linked to an identity provider: their next sign-in with it, with their verified e-mail, links to them (once, within signIn.local.passwordLinkHours)",
    )
    .requiredOption("--provider <id>", "the identity provider (signIn.providers[].id)")
    .action((who: string, options: CommonOptions & { provider: string }) =>
      withServices(options, async ({ identity }) => {
        const user = await identity.users.find(who);
        const until = new Date(await identity.people.allowLink(user.id, options.provider, CLI)).toISOString();
        if (options.json)
          printJson({ user_id: user.id, email: user.email, provider: options.provider, until });
        else
          printLines(
            `${user.email}'s next sign-in with ${options.provider} before ${until} links it to them.`,
            "Ask them to sign in with it now.",
          );
      }),
    );

  common(users.command("reset-password <user>"))
    .description(
      "print a one-time link for a user (id or e-mail) to set a new password, or read it with --password-stdin",
    )
    .option("--password-stdin", "read the new password from standard input instead of printing a link")
    .action((who: string, options: CommonOptions & PasswordOptions) =>
      withServices(options, async (services) => {
        const user = await services.identity.users.find(who);
        const { link, lines } = await passwordOrLink(services, user, options);
        if (options.json) printJson({ user_id: user.id, email: user.email, set_password_url: link });
        else printLines(...lines);
      }),
    );
}
