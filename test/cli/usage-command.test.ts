// `tunnel-gateway usage` run in this process on the suite's Redis: an account's days (or one key's) as a
// table with its total, CSV, or JSON, and --csv and --json refused together.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { usageCommand } from "../../src/cli/usage-command.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment, usageOf } from "../helpers/cli.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let keyA: string;
let keyB: string;
beforeEach(async () => {
  store = await openStore({ prefix: stubCliEnvironment() });
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  keyA = (await store.keyService.create({ accountId: "acme", name: "a" }, ACTOR)).record.id;
  keyB = (await store.keyService.create({ accountId: "acme", name: "b" }, ACTOR)).record.id;
  await store.redis.hset(store.redisKeys.usage("acme", keyA, "2026-11-20"), {
    lat_le_100: 2,
    prompt_tokens: 10,
    completion_tokens: 5,
    cost: 333_333,
    latency_ms_sum: 120,
  });
  await store.redis.hset(store.redisKeys.usage("acme", keyB, "2026-11-20"), {
    lat_le_inf: 1,
    cost: 666_667,
    errors: 1,
  });
});
afterEach(() => {
  vi.unstubAllEnvs();
  store.close();
});

const usage = (...args: string[]) => runCli(usageCommand, ["usage", "--account", "acme", ...args]);
const RANGE = ["--from", "2026-11-20", "--to", "2026-11-21"];

describe("usage", () => {
  it("prints the account's days, summed over its keys, with a total exact to the micro-ruble", async () => {
    const run = await usage(...RANGE);
    expect(run.error).toBeNull();
    expect(run.stdout).toBe(
      [
        "DATE        REQUESTS  PROMPT TOKENS  CACHED TOKENS  COMPLETION TOKENS  COST RUB  ERRORS",
        "2026-11-20         3             10              0                  5         1       1",
        "2026-11-21         0              0              0                  0         0       0",
        "total              3             10              0                  5         1       1",
        "",
      ].join("\n"),
    );
  });

  it("prints one key's days as CSV", async () => {
    const run = await usage(...RANGE, "--key", keyA, "--csv");
    expect(run.stdout).toBe(
      "date,requests,prompt_tokens,cached_tokens,completion_tokens,cost_rub,errors\n2026-11-20,2,10,0,5,0.333333,0\n2026-11-21,0,0,0,0,0,0\n",
    );
  });

  it("prints JSON naming the account, the key and the range, each day as the admin API shows it", async () => {
    const run = await usage(...RANGE, "--key", keyB, "--json");
    expect(JSON.parse(run.stdout)).toEqual({
      account_id: "acme",
      key_id: keyB,
      from: "2026-11-20",
      to: "2026-11-21",
      days: [
        expect.objectContaining({
          date: "2026-11-20",
          requests: 1,
          cost: 0.666667,
          errors: 1,
          p95_latency_ms: null,
        }),
        expect.objectContaining({ date: "2026-11-21", requests: 0, cost: 0, avg_latency_ms: null }),
      ],
    });
    const all = JSON.parse((await usage(...RANGE, "--json")).stdout);
    expect(all.key_id).toBeNull();
    expect(all.days[0]).toMatchObject({ requests: 3, avg_latency_ms: 40 });
  });

  it("refuses --csv with --json, a missing --account, and a bad range", async () => {
    expect(usageOf(await usage("--csv", "--json")).code).toBe("commander.conflictingOption");
    expect(usageOf(await runCli(usageCommand, ["usage"])).code).toBe("commander.missingMandatoryOptionValue");
    expect((await usage("--from", "2026-11-22", "--to", "2026-11-21")).error).toMatchObject({
      code: "invalid_request",
      message: "from (2026-11-22) must not be after to (2026-11-21)",
    });
  });

  it("prints the account's CSV exports: a line per day, key and model, or its kept requests", async () => {
    await store.redis.hset(store.redisKeys.usage("acme", keyA, "2026-11-20"), {
      "m:llama3:8b:requests": 2,
      "m:llama3:8b:cost": 333_333,
    });
    const daily = await usage(...RANGE, "--export", "usage");
    expect(daily.error).toBeNull();
    expect(daily.stdout.split("\r\n")).toEqual([
      "date,key_id,key_name,model,requests,prompt_tokens,cached_tokens,completion_tokens,cost_rub",
      `2026-11-20,${keyA},a,,0,10,0,5,0`,
      `2026-11-20,${keyA},a,llama3:8b,2,0,0,0,0.333333`,
      `2026-11-20,${keyB},b,,1,0,0,0,0.666667`,
      "",
    ]);
    await store.redis.lpush(
      store.redisKeys.requestLog("acme", keyB),
      JSON.stringify({ at: "2026-11-20T09:00:00.000Z", request_id: "r1", cost: 0.5, status: 200 }),
    );
    const requests = await usage(...RANGE, "--export", "requests");
    expect(requests.stdout.split("\r\n")[1]).toMatch(new RegExp(`^2026-11-20T09:00:00.000Z,r1,${keyB},b,`));
  });

  it("refuses --export with --key, --csv or --json, and an export it does not know", async () => {
    for (const other of [["--key", "key_x"], ["--csv"], ["--json"]]) {
      expect(usageOf(await usage("--export", "usage", ...other)).code, other[0]).toBe(
        "commander.conflictingOption",
      );
    }
    expect(usageOf(await usage("--export", "bills")).code).toBe("commander.invalidArgument");
  });
});
