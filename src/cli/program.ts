// The `tunnel-gateway` program (src/cli.ts runs it): wires commander to the service layer and the gateway; no
// logic of its own.
// Exit codes: 0 success, 1 failure (one line on stderr, the error table's JSON shape with --json), 2 usage
// error. Usage is checked before the configuration is loaded or Redis is reached, so it is always exit 2;
// a command's arguments are checked by the services before their first Redis call. Each group of commands
// is in a file of this folder.

import { Command, CommanderError } from "commander";
import { EXIT_FAILURE, EXIT_USAGE, refuseRepeatedOptions, version } from "./common.js";
import { printFailure } from "./output.js";
import { serveCommand } from "./serve-command.js";

/** The program; with `serving`, `serve` alone (the management commands' modules stay unloaded). */
async function buildProgram(serving: boolean): Promise<Command> {
  const program = new Command("tunnel-gateway")
    .description("Metered, key-authenticated gateway in front of an OpenAI-compatible model server")
    .version(version(), "--version", "print the version")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");
  serveCommand(program);
  if (!serving) (await import("./management-commands.js")).managementCommands(program);
  refuseRepeatedOptions(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  let json = false;
  const program = (await buildProgram(argv[2] === "serve")).hook("preAction", (_program, command) => {
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
