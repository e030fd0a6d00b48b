// The commands that manage accounts, keys, people and the books: every command but `serve`. Loaded by the
// program only when the command line names one of them (or asks for help), so that the serving process holds
// none of their modules — the services, their validation schemas — in its resident set.

import type { Command } from "commander";
import { accountsCommands } from "./accounts-commands.js";
import { alertCommands } from "./alert-commands.js";
import { booksCommands } from "./books-commands.js";
import { budgetCommands } from "./budget-commands.js";
import { keysCommands } from "./keys-commands.js";
import { scimCommands } from "./scim-commands.js";
import { sharingCommands } from "./sharing-commands.js";
import { usageCommand } from "./usage-command.js";
import { usersCommands } from "./users-commands.js";

export function managementCommands(program: Command): void {
  const accounts = accountsCommands(program);
  alertCommands(accounts);
  budgetCommands(accounts);
  keysCommands(program);
  sharingCommands(program);
  usageCommand(program);
  booksCommands(program);
  usersCommands(program);
  scimCommands(program);
}
