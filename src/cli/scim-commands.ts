// `tunnel-gateway scim-tokens …`: the SCIM tokens an identity provider's provisioning (Okta, Entra ID)
// authenticates with at /scim/v2 (docs/scim.md). A token's value is printed once, when it is made; Redis
// keeps its SHA-256. Revoking one refuses the next SCIM request made with it.

import type { Command } from "commander";
import { type CommonOptions, withServices } from "./command-services.js";
import { CLI, common } from "./common.js";
import { formatTable, printJson, printLines } from "./output.js";

const views = () => import("../admin/scim-schemas.js");

export function scimCommands(program: Command): void {
  const tokens = program
    .command("scim-tokens")
    .description("manage the tokens SCIM provisioning (Okta, Entra ID) authenticates with");

  common(tokens.command("create"))
    .description("make a SCIM token; its value is printed this once")
    .requiredOption("--name <name>", "what it is for, e.g. okta or entra")
    .action((options: CommonOptions & { name: string }) =>
      withServices(options, async ({ identity, dashboardUrl }) => {
        const { scimTokenView } = await views();
        const { record, value } = await identity.scim.tokens.create(options.name, CLI);
        if (options.json) printJson({ ...scimTokenView(record), token: value });
        else
          printLines(
            `Created SCIM token ${record.name} (${record.id}). Its value, shown this once:`,
            "",
            `  ${value}`,
            "",
            `Give it to the identity provider's provisioning with the base URL ${dashboardUrl.replace(/\/$/, "")}/scim/v2.`,
          );
      }),
    );

  common(tokens.command("list"))
    .description("list the SCIM tokens: name, last characters, who made them, their last use")
    .action((options: CommonOptions) =>
      withServices(options, async ({ identity }) => {
        const { scimTokenView } = await views();
        const list = (await identity.scim.tokens.list()).map(scimTokenView);
        if (options.json) printJson(list);
        else if (list.length === 0) printLines("no SCIM tokens");
        else
          printLines(
            ...formatTable(
              ["id", "name", "ends with", "created", "by", "last used"],
              list.map((t) => [t.id, t.name, t.hint, t.created_at, t.created_by, t.last_used_at ?? "never"]),
            ),
          );
      }),
    );

  common(tokens.command("revoke <id>"))
    .description("revoke a SCIM token: the next SCIM request with it is refused")
    .action((id: string, options: CommonOptions) =>
      withServices(options, async ({ identity }) => {
        const token = await identity.scim.tokens.revoke(id, CLI);
        if (options.json) printJson({ revoked: 1, id: token.id });
        else printLines(`Revoked SCIM token ${token.name} (${token.id}).`);
      }),
    );
}
