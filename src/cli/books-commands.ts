// `tunnel-gateway books check`: the request log (a file, or stdin) against what Redis holds — every
// difference per key and day, per budget window and per account and month, in µ₽ (services/books-check.ts).
// Exit 0 when the books agree, 1 when they differ or the log cannot be read (a bad line is named, and nothing
// is compared unless --skip-bad-lines).

import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { Command } from "commander";
import { GatewayError } from "../core/errors.js";
import { BooksCheck, type BooksDifference, type BooksStatement } from "../services/books-check.js";
import { LogLineError, readLoggedCharge } from "../services/logged-charges.js";
import { type CommonOptions, withServices } from "./command-services.js";
import { common, EXIT_FAILURE, usageError } from "./common.js";
import { printJson, printLines } from "./output.js";

/** Bad lines named in the error when the log is refused. */
const BAD_LINES_SHOWN = 10;

export function booksCommands(program: Command): void {
  const books = program.command("books").description("the gateway's books against the request log");
  common(books.command("check"))
    .description(
      "compare the request log's charges with Redis per key and day, per budget window and per account and month; print every difference in µ₽",
    )
    .option("--log <file>", "the request log: JSON lines as the gateway writes them ('-' or none: stdin)")
    .option("--skip-bad-lines", "report lines that are no log line on stderr and compare without them")
    .action((options: CommonOptions & { log?: string; skipBadLines?: boolean }) => {
      if ((options.log === undefined || options.log === "-") && process.stdin.isTTY) {
        usageError("give the request log with --log <file>, or on stdin: … | tunnel-gateway books check");
      }
      return withServices(options, async ({ stores }) => {
        const check = new BooksCheck(stores);
        await readLog(options.log, options.skipBadLines === true, (charge) => check.add(charge));
        const statement = await check.compare();
        if (options.json) printJson(statementJson(statement));
        else printLines(...statementLines(statement));
        if (statement.differences.length > 0) process.exitCode = EXIT_FAILURE;
      });
    });
}

async function readLog(
  file: string | undefined,
  skipBadLines: boolean,
  add: (charge: NonNullable<ReturnType<typeof readLoggedCharge>>) => void,
): Promise<void> {
  let input: Readable = process.stdin;
  if (file !== undefined && file !== "-") {
    try {
      input = (await open(file)).createReadStream();
    } catch (error) {
      throw new GatewayError("invalid_request", `cannot read the log ${file}: ${(error as Error).message}`);
    }
  }
  const bad: LogLineError[] = [];
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    try {
      const charge = readLoggedCharge(text, line);
      if (charge !== null) add(charge);
    } catch (error) {
      if (!(error instanceof LogLineError)) throw error;
      bad.push(error);
    }
  }
  if (bad.length === 0) return;
  if (skipBadLines) {
    for (const error of bad) process.stderr.write(`warning: ${error.message}; skipped\n`);
    return;
  }
  const shown = bad.slice(0, BAD_LINES_SHOWN).map((error) => error.message);
  const more = bad.length > BAD_LINES_SHOWN ? `; and ${bad.length - BAD_LINES_SHOWN} more` : "";
  throw new GatewayError(
    "invalid_request",
    `the log has ${bad.length} line(s) that are no log line, and the books were not compared: ${shown.join("; ")}${more} (--skip-bad-lines compares without them)`,
  );
}

function figureText(difference: BooksDifference): string {
  const { figure } = difference;
  if ("day" in figure) return `day ${figure.day}`;
  if ("month" in figure) return `month ${figure.month}`;
  return `${figure.window} window from ${figure.from}`;
}

function statementLines(statement: BooksStatement): string[] {
  const lines = statement.differences.map(
    (d) =>
      `account ${d.accountId}${d.keyId === null ? "" : `, key ${d.keyId}`}, ${figureText(d)}: ` +
      `log ${d.log} µ₽, Redis ${d.redis} µ₽, Redis − log ${d.difference} µ₽`,
  );
  for (const note of statement.notCompared) lines.push(`not compared: ${note}`);
  const { accounts, keys, days, windows, months } = statement.compared;
  const compared = `${accounts} account(s), ${keys} key(s), ${days} day(s), ${windows} window(s), ${months} month(s)`;
  const count = statement.differences.length;
  lines.push(
    count === 0
      ? `The books agree: ${compared} compared.`
      : `${count} difference(s) in ${compared} compared.`,
  );
  return lines;
}

function statementJson(statement: BooksStatement): unknown {
  return {
    compared: statement.compared,
    differences: statement.differences.map((d) => ({
      account_id: d.accountId,
      key_id: d.keyId,
      ...("day" in d.figure && { day: d.figure.day }),
      ...("month" in d.figure && { month: d.figure.month }),
      ...("window" in d.figure && { window: d.figure.window, from: d.figure.from }),
      log_micros: d.log,
      redis_micros: d.redis,
      difference_micros: d.difference,
    })),
    not_compared: statement.notCompared,
  };
}
