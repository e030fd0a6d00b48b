// `tunnel-gateway books check` run in this process on the suite's Redis: charges settled through the real
// settle script, the request log's lines for them, the statement when they agree (key and account windows
// included) and when Redis lost one, and every kind of bad line named by its number, never a crash.
// test/e2e/books-drift.test.ts runs the binary on a gateway's own log.

import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { booksCommands } from "../../src/cli/books-commands.js";
import { GatewayError } from "../../src/core/errors.js";
import { BudgetService } from "../../src/services/budgets.js";
import { ACTOR } from "../helpers/actor.js";
import { settlementAt } from "../helpers/billing-scripts.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { RealClock } from "../helpers/clock.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const temporaryDirectory = temporaryDirectories("tunnel-books-cli-");

let store: TestStore;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment(), clock: new RealClock() });
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  await new BudgetService(store.stores).setAccountBudgets("acme", { budgets: ["50/day"] }, ACTOR);
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

/** Settles a request of the key for `cost` µ₽ now, and returns its log line as the gateway writes it. */
async function charged(keyId: string, cost: number): Promise<string> {
  const ref = { accountId: "acme", keyId };
  const now = Date.now();
  const reservationId = randomUUID();
  await store.billing.reserve(ref, {
    reservationId,
    amount: cost,
    tokens: 0,
    keyHash: (await store.keyService.show(keyId)).hash as string,
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  await store.billing.settle({
    ref,
    ...settlementAt(store, reservationId, cost, { latencyMs: 1 }),
  });
  const line = { level: 30, time: now, request_id: reservationId, key_id: keyId, account: "acme" };
  return JSON.stringify({ ...line, status: 200, cost_rub: cost / 1e6, msg: "request" });
}

async function keyWithCharges(...costs: number[]): Promise<{ id: string; lines: string[] }> {
  const { record } = await store.keyService.create(
    { accountId: "acme", name: "k", budget: "20", period: "day" },
    ACTOR,
  );
  const lines = [];
  for (const cost of costs) lines.push(await charged(record.id, cost));
  return { id: record.id, lines };
}

function logFile(lines: string[]): string {
  const file = join(temporaryDirectory(), "requests.log");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const check = (...args: string[]) => runCli(booksCommands, ["books", "check", ...args]);

describe("books check", () => {
  it("says the books agree when every logged charge is in Redis: by key and day, and both windows", async () => {
    const { lines } = await keyWithCharges(250_000, 1_000_001);
    const started = JSON.stringify({ level: 30, time: Date.now(), msg: "tunnel-gateway listening" });
    const run = await check("--log", logFile([started, ...lines, ""]));
    expect(run.error).toBeNull();
    expect(run.stdout).toBe(
      "The books agree: 1 account(s), 1 key(s), 1 day(s), 2 window(s), 0 month(s) compared.\n",
    );
    expect(process.exitCode ?? 0).toBe(0);
  });

  it("prints every difference in µ₽ and fails when Redis holds less than the log", async () => {
    const { id, lines } = await keyWithCharges(250_000);
    const extra = JSON.stringify({ ...JSON.parse(lines[0] as string), request_id: "lost", cost_rub: 0.0395 });
    try {
      const run = await check("--log", logFile([...lines, extra]), "--json");
      expect(run.error).toBeNull();
      const statement = JSON.parse(run.stdout);
      const day = store.calendar.dayOf(Date.now());
      expect(statement.differences).toEqual([
        {
          account_id: "acme",
          key_id: id,
          day,
          log_micros: 289_500,
          redis_micros: 250_000,
          difference_micros: -39_500,
        },
        expect.objectContaining({
          account_id: "acme",
          key_id: id,
          window: "day",
          difference_micros: -39_500,
        }),
        expect.objectContaining({
          account_id: "acme",
          key_id: null,
          window: "day",
          difference_micros: -39_500,
        }),
      ]);
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = undefined;
    }
  });

  it("names every line that is no log line, and compares nothing", async () => {
    const { lines } = await keyWithCharges(250_000);
    const good = JSON.parse(lines[0] as string);
    const bad = [
      "not json at all",
      JSON.stringify([1, 2]),
      JSON.stringify({ ...good, account: undefined }),
      JSON.stringify({ ...good, cost_rub: 0.0000001 }),
      JSON.stringify({ ...good, cost_rub: -1 }),
      JSON.stringify({ ...good, time: "yesterday" }),
    ];
    const run = await check("--log", logFile([lines[0] as string, ...bad]));
    expect(run.error).toBeInstanceOf(GatewayError);
    expect((run.error as GatewayError).code).toBe("invalid_request");
    expect((run.error as GatewayError).message).toBe(
      "the log has 6 line(s) that are no log line, and the books were not compared: " +
        "line 2 is not JSON (the gateway writes one JSON object per line); line 3 is not a JSON object; " +
        "line 4 has no account; line 5 has a cost_rub of 1e-7, which is not an amount of rubles to the " +
        "micro-ruble; line 6 has a negative cost_rub (-1); line 7 has no time (milliseconds since 1970, as " +
        "pino writes it) (--skip-bad-lines compares without them)",
    );
    expect(run.stdout).toBe("");
  });

  it("compares without the bad lines with --skip-bad-lines, each named on stderr", async () => {
    const { lines } = await keyWithCharges(250_000);
    const run = await check("--log", logFile([...lines, "{ truncated"]), "--skip-bad-lines");
    expect(run.error).toBeNull();
    expect(run.stderr).toBe(
      "warning: line 2 is not JSON (the gateway writes one JSON object per line); skipped\n",
    );
    expect(run.stdout).toMatch(/^The books agree: /);
  });

  it("refuses a log it cannot read, naming it", async () => {
    const run = await check("--log", join(temporaryDirectory(), "missing.log"));
    expect((run.error as GatewayError).message).toMatch(/^cannot read the log .*missing\.log: ENOENT/);
  });
});
