#!/usr/bin/env node
// The `tunnel-gateway` command: wires commander to the service layer and the gateway; no logic of its own.
// Exit codes: 0 success, 1 failure (one line on stderr, the error table's JSON shape with --json), 2 usage
// error. Usage is checked before the configuration is loaded or Redis is reached, so it is always exit 2;
// a command's arguments are checked by the services before their first Redis call. Each group of commands
// is in src/cli/.

import { Command, CommanderError } from "commander";
import { accountsCommands } from "./cli/accounts-commands.js";
import { alertCommands } from "./cli/alert-commands.js";
import { booksCommands } from "./cli/books-commands.js";
import { budgetCommands } from "./cli/budget-commands.js";
import { EXIT_FAILURE, EXIT_USAGE, refuseRepeatedOptions, version } from "./cli/common.js";
import { keysCommands } from "./cli/keys-commands.js";
import { printFailure } from "./cli/output.js";
import { scimCommands } from "./cli/scim-commands.js";
import { serveCommand } from "./cli/serve-command.js";
import { sharingCommands } from "./cli/sharing-commands.js";
import { usageCommand } from "./cli/usage-command.js";
import { usersCommands } from "./cli/users-commands.js";

function buildProgram(): Command {
  const program = new Command("tunnel-gateway")
    .description("Metered, key-authenticated gateway in front of an OpenAI-compatible model server")
    .version(version(), "--version", "print the version")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");
  serveCommand(program);
  const accounts = accountsCommands(program);
  alertCommands(accounts);
  budgetCommands(accounts);
  keysCommands(program);
  sharingCommands(program);
  usageCommand(program);
  booksCommands(program);
  usersCommands(program);
  scimCommands(program);
  refuseRepeatedOptions(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  let json = false;
  const program = buildProgram().hook("preAction", (_program, command) => {
    json = command.opts().json === true;
  });
  try {
    await program.parseAsync(argv);
    // A command that answers but reports a finding (books check: the books differ) sets its own code.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
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
