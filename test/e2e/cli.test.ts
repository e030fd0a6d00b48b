// The tunnel-gateway binary end to end: `node dist/cli.js …` in a child process against the suite's Redis,
// as an operator would run it. `npm test` builds dist/ first.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { PRICING, startTestGateway } from "../helpers/gateway.js";
import { openStore, testPrefix } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const CLI = join(import.meta.dirname, "../../dist/cli.js");
/** Nothing listens on port 1, and an unprivileged process cannot start listening there. */
const UNREACHABLE_REDIS = "redis://127.0.0.1:1";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env, TUNNEL_CONFIG: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let env: Record<string, string>;
/** Configuration files the tests write; removed at the end. */
const temporaryDirectory = temporaryDirectories("tunnel-cli-");

function configFile(name: string, yaml: string): string {
  const file = join(temporaryDirectory(), name);
  writeFileSync(file, yaml);
  return file;
}

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it for you)");
  env = { TUNNEL_REDIS_URL: inject("redisUrl"), TUNNEL_REDIS_PREFIX: testPrefix() };
});

async function ok(args: string[], runEnv = env): Promise<unknown> {
  const result = await run([...args, "--json"], runEnv);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

async function fails(args: string[], code: number, message: RegExp, runEnv = env): Promise<void> {
  const result = await run(args, runEnv);
  expect(result.code).toBe(code);
  expect(result.stderr).toMatch(message);
  if (code === 1) expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe("accounts", () => {
  it("create, show, top up and list with JSON output", async () => {
    // A prefix of its own, so that the list holds this test's account alone whichever tests ran before.
    const own = { ...env, TUNNEL_REDIS_PREFIX: testPrefix() };
    const created = await ok(
      ["accounts", "create", "acme", "--name", "Acme Corp", "--balance", "4987.65"],
      own,
    );
    expect(created).toEqual({
      id: "acme",
      name: "Acme Corp",
      balance: 4987.65,
      currency: "RUB",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      sharing: { weight: 1, priority: null, max_wait_ms: null },
      billing: "prepaid",
      budgets: [],
      alert_at: null,
      budget_alert_at: null,
    });
    expect(await ok(["accounts", "topup", "acme", "12.35"], own)).toMatchObject({ balance: 5000 });
    expect(await ok(["accounts", "show", "acme"], own)).toEqual({ ...(created as object), balance: 5000 });
    expect(await ok(["accounts", "list"], own)).toEqual([{ ...(created as object), balance: 5000 }]);
  });

  it("print readable text without --json", async () => {
    await ok(["accounts", "create", "text-co", "--balance", "5"]);
    const result = await run(["accounts", "show", "text-co"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/balance\s+5 RUB/);
  });

  it("fail with exit 1 and one line on stderr", async () => {
    await ok(["accounts", "create", "dup"]);
    await fails(["accounts", "create", "dup"], 1, /^error: account dup already exists\n$/);
    await fails(["accounts", "topup", "dup", "0"], 1, /amount must be a positive amount/);
    await fails(["accounts", "topup", "dup", "1e3"], 1, /amount must be a positive amount/);
    await fails(["accounts", "show", "ghost"], 1, /no account with id ghost/);
    await fails(["accounts", "create", "Bad Id"], 1, /account id must be/);
  });

  it("print the error as one JSON line with --json", async () => {
    const result = await run(["accounts", "show", "ghost", "--json"], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        message: "no account with id ghost",
        type: "invalid_request_error",
        code: "account_not_found",
      },
    });
  });
});

describe("keys", () => {
  it("create prints the key once with the /v1/key object; list, show and revoke manage it", async () => {
    await ok(["accounts", "create", "keyco", "--balance", "100"]);
    const created = (await ok([
      "keys",
      "create",
      "--account",
      "keyco",
      "--name",
      "production",
      "--budget",
      "1000",
      "--period",
      "month",
      "--ttl",
      "30d",
      "--models",
      "llama-3-8b,qwen-2",
      "--no-log-bodies",
    ])) as Record<string, unknown>;
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{20}$/),
      name: "production",
      account_id: "keyco",
      created_at: expect.any(String),
      expires_at: expect.any(String),
      allowed_models: ["llama-3-8b", "qwen-2"],
      log_bodies: false,
      budget: {
        period: "month",
        amount: 1000,
        spent: 0,
        remaining: 1000,
        resets_at: expect.any(String),
        initial: 1000,
        reset_at: expect.any(String),
      },
      budgets: [{ period: "month", amount: 1000, spent: 0, remaining: 1000, resets_at: expect.any(String) }],
      currency: "RUB",
      state: "active",
      grace_until: null,
      disabled_at: null,
      limits: { rpm: null, tpm: null, max_parallel: null },
      key: expect.stringMatching(/^sk-tunnel-[0-9a-f]{64}$/),
    });
    expect(Date.parse(created.expires_at as string) - Date.parse(created.created_at as string)).toBe(
      30 * 86_400_000,
    );

    const { key, ...view } = created;
    const listed = await ok(["keys", "list", "--account", "keyco"]);
    expect(listed).toEqual([{ ...view, revoked_at: null }]);
    expect(JSON.stringify(listed)).not.toContain(key as string);
    expect(await ok(["keys", "show", created.id as string])).toEqual({ ...view, revoked_at: null });

    const revoked = (await ok(["keys", "revoke", created.id as string])) as Record<string, unknown>;
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expect(await ok(["keys", "list", "--account", "keyco"])).toEqual([
      { ...view, state: "revoked", revoked_at: revoked.revoked_at },
    ]);
  });

  it("shows the key in the text output with a warning that it will not be shown again", async () => {
    await ok(["accounts", "create", "textkeys", "--balance", "1"]);
    const result = await run(["keys", "create", "--account", "textkeys", "--name", "dev"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/sk-tunnel-[0-9a-f]{64}/);
    expect(result.stdout).toMatch(/only time the key is shown/);
  });

  it("refuse a key while the balance is not positive, and a lifetime under 15 minutes", async () => {
    await ok(["accounts", "create", "broke"]);
    await fails(["keys", "create", "--account", "broke", "--name", "x"], 1, /balance is not positive/);
    await ok(["accounts", "topup", "broke", "1"]);
    await fails(
      ["keys", "create", "--account", "broke", "--name", "x", "--ttl", "14m"],
      1,
      /at least 15 minutes/,
    );
    expect(await ok(["keys", "list", "--account", "broke"])).toEqual([]);
  });

  it("exit 2 on usage errors", async () => {
    await fails(["keys", "create", "--account", "a"], 2, /required option '--name <name>'/);
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--period", "year"],
      2,
      /--period.*invalid/i,
    );
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--period", "day"],
      2,
      /--period needs --budget/,
    );
    await fails(["accounts", "topup", "a"], 2, /missing required argument 'rubles'/);
    await fails(["accounts", "frobnicate"], 2, /unknown command/);
    await fails(["keys", "list", "--account", "a", "--bogus"], 2, /unknown option '--bogus'/);
  });

  it("exit 2 on usage errors before the configuration is read or Redis is reached", async () => {
    const nowhere = { ...env, TUNNEL_REDIS_URL: UNREACHABLE_REDIS };
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--period", "day", "--json"],
      2,
      /^error: --period needs --budget\n/,
      nowhere,
    );
    await fails(
      ["keys", "update", "key_x", "--models", "a", "--all-models"],
      2,
      /'--all-models' cannot be used with option '--models/,
      nowhere,
    );
    // A bad configuration is not a usage error, but a usage error wins over it.
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--period", "day"],
      2,
      /--period needs --budget/,
      { ...nowhere, TUNNEL_REDIS_PREFIX: "not a prefix" },
    );
  });
});

describe("key controls", () => {
  it("set, change and remove limits with --rpm, --tpm, --max-parallel and --no-*, shown in list and show", async () => {
    await ok(["accounts", "create", "limitco", "--balance", "10"]);
    const flags = ["--rpm", "60", "--tpm", "100000", "--max-parallel", "4"];
    const created = (await ok(["keys", "create", "--account", "limitco", "--name", "k", ...flags])) as any;
    expect(created.limits).toEqual({ rpm: 60, tpm: 100_000, max_parallel: 4 });
    const changed = (await ok(["keys", "update", created.id, "--rpm", "120", "--no-max-parallel"])) as any;
    expect(changed.limits).toEqual({ rpm: 120, tpm: 100_000, max_parallel: null });
    const shown = await run(["keys", "show", created.id], env);
    expect(shown.stdout).toMatch(/^limits {3}rpm 120, tpm 100000$/m);
    const listed = await run(["keys", "list", "--account", "limitco"], env);
    expect(listed.stdout).toMatch(/^ID .* STATE +LIMITS +BUDGET/);
    expect(listed.stdout).toMatch(/ active +120 rpm 100000 tpm +none /);
  });

  it("refuse 0, negative, fractional and conflicting limits with a clear error, writing nothing", async () => {
    await ok(["accounts", "create", "badlimits", "--balance", "10"]);
    const create = ["keys", "create", "--account", "badlimits", "--name", "k"];
    for (const [flag, value] of [
      ["--rpm", "0"],
      ["--rpm", "1.5"],
      ["--tpm", "lots"],
      ["--max-parallel", "0"],
      ["--max-parallel", "1e3"],
    ] as const) {
      const name = flag === "--max-parallel" ? "max_parallel" : flag.slice(2);
      await fails([...create, flag, value], 1, new RegExp(`^error: ${name} must be a whole number`));
    }
    await fails([...create, "--rpm", "-5"], 1, /^error: rpm must be a whole number .*; got "-5"/);
    expect(await ok(["keys", "list", "--account", "badlimits"])).toEqual([]);
    const created = (await ok([...create, "--tpm", "1000"])) as any;
    await fails(
      ["keys", "update", created.id, "--tpm", "5", "--no-tpm"],
      2,
      /'--no-tpm' cannot be used with option '--tpm/,
    );
    await fails(
      ["keys", "update", created.id, "--max-parallel", "-1"],
      1,
      /max_parallel must be a whole number/,
    );
    expect(((await ok(["keys", "show", created.id])) as any).limits.tpm).toBe(1000);
  });

  it("rotate a key (the new value printed once, the old one kept for --grace), disable and enable it", async () => {
    await ok(["accounts", "create", "rotco", "--balance", "10"]);
    const created = (await ok(["keys", "create", "--account", "rotco", "--name", "k"])) as any;
    await fails(["keys", "rotate", created.id, "--grace", "8d"], 1, /grace must be at most 7 days/);
    const rotated = (await ok(["keys", "rotate", created.id, "--grace", "1h"])) as any;
    expect(rotated).toMatchObject({ id: created.id, state: "rotating", grace_until: expect.any(String) });
    expect(rotated.key).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
    expect(rotated.key).not.toBe(created.key);
    const text = await run(["keys", "rotate", created.id], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/only time the value is shown/);
    expect(text.stdout).toMatch(/The old value stopped working now\./);
    expect(((await ok(["keys", "disable", created.id])) as any).state).toBe("disabled");
    expect((await run(["keys", "disable", created.id], env)).stdout).toMatch(/already disabled/);
    expect(((await ok(["keys", "enable", created.id])) as any).state).toBe("active");
  });
});

describe("dashboard tokens and key changes", () => {
  it("issue an account token once, replace it, and revoke it", async () => {
    await ok(["accounts", "create", "tokenco", "--balance", "1"]);
    const first = (await ok(["accounts", "token", "create", "tokenco"])) as {
      account_id: string;
      token: string;
    };
    expect(first).toEqual({
      account_id: "tokenco",
      token: expect.stringMatching(/^sk-tunnel-account-[0-9a-f]{64}$/),
    });
    const second = (await ok(["accounts", "token", "create", "tokenco"])) as { token: string };
    expect(second.token).not.toBe(first.token);
    expect(await ok(["accounts", "token", "revoke", "tokenco"])).toEqual({
      account_id: "tokenco",
      revoked: true,
    });
    expect(await ok(["accounts", "token", "revoke", "tokenco"])).toEqual({
      account_id: "tokenco",
      revoked: false,
    });
    await fails(["accounts", "token", "create", "ghost"], 1, /no account with id ghost/);
  });

  it("change a key's name, budget, models and privacy switch", async () => {
    await ok(["accounts", "create", "updco", "--balance", "10"]);
    const { id } = (await ok([
      "keys",
      "create",
      "--account",
      "updco",
      "--name",
      "k",
      "--budget",
      "5",
      "--models",
      "a",
    ])) as { id: string };
    expect(
      await ok([
        "keys",
        "update",
        id,
        "--name",
        "renamed",
        "--budget",
        "7.5",
        "--period",
        "day",
        "--no-log-bodies",
      ]),
    ).toMatchObject({
      name: "renamed",
      budgets: [{ amount: 7.5, period: "day" }],
      log_bodies: false,
      allowed_models: ["a"],
    });
    expect(await ok(["keys", "update", id, "--no-budget", "--all-models"])).toMatchObject({
      budget: null,
      allowed_models: null,
    });
    await fails(
      ["keys", "update", id, "--models", "a", "--all-models"],
      2,
      /'--all-models' cannot be used with option '--models/,
    );
    await fails(["keys", "update", id], 1, /nothing to change/);
  });
});

describe("budget windows", () => {
  it("create a key with several windows, give an account budgets of its own, and clear them", async () => {
    await ok(["accounts", "create", "teamco", "--balance", "0"]);
    await fails(["keys", "create", "--account", "teamco", "--name", "x"], 1, /balance is not positive/);
    const budgeted = [
      "accounts",
      "budgets",
      "set",
      "teamco",
      "--budgets",
      "300000/month",
      "--billing",
      "budgeted",
    ];
    expect(await ok(budgeted)).toMatchObject({
      billing: "budgeted",
      budgets: [{ period: "month", amount: 300000, spent: 0, remaining: 300000 }],
    });
    // A budgeted account needs no balance for a key.
    const key = (await ok([
      ...["keys", "create", "--account", "teamco", "--name", "search", "--budgets", "100/day,2000/month"],
    ])) as { id: string; budgets: { period: string; amount: number }[] };
    expect(key.budgets.map((window) => [window.period, window.amount])).toEqual([
      ["day", 100],
      ["month", 2000],
    ]);
    const updated = (await ok(["keys", "update", key.id, "--budgets", "50/week"])) as typeof key;
    expect(updated.budgets.map((window) => [window.period, window.amount])).toEqual([["week", 50]]);
    await fails(
      ["keys", "create", "--account", "teamco", "--name", "y", "--budgets", "1/day,2/day"],
      1,
      /day is given twice/,
    );
    await fails(["keys", "update", key.id, "--budgets", "5/fortnight"], 1, /budgets\[0\] must be an amount/);
    const shown = await run(["accounts", "show", "teamco"], env);
    expect(shown.stdout).toContain("billing  budgeted");
    expect(shown.stdout).toMatch(/budget {3}0 of 300000 RUB spent this month/);
    expect(await ok(["accounts", "budgets", "clear", "teamco"])).toMatchObject({
      billing: "prepaid",
      budgets: [],
    });
  });
});

describe("configuration and connection errors", () => {
  it("report a bad configuration file with the field and no stack trace", async () => {
    const file = configFile("bad.yaml", "billing:\n  timezone: Mars/Base\n");
    await fails(
      ["accounts", "list", "--config", file],
      1,
      /invalid configuration: .*bad\.yaml line 2: billing\.timezone: must be an IANA/,
    );
  });

  it("report an unreachable Redis without hanging", async () => {
    await fails(
      ["accounts", "list", "--redis", UNREACHABLE_REDIS],
      1,
      /cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/,
    );
    const result = await run(["accounts", "list", "--redis", UNREACHABLE_REDIS, "--json"], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toMatchObject({
      error: { type: "service_unavailable", code: "service_unavailable" },
    });
  });

  it("print a bad configuration as one invalid_request JSON line with --json, naming where it came from", async () => {
    const file = configFile("bad.yaml", "billing:\n  timezone: Mars/Base\n");
    const cases: { args: string[]; env: Record<string, string>; names: RegExp }[] = [
      { args: ["--config", file], env, names: /bad\.yaml line 2: billing\.timezone/ },
      { args: ["--redis", "ftp://r:6379"], env, names: /^invalid configuration: --redis: redis\.url: / },
      {
        args: [],
        env: { ...env, TUNNEL_REDIS_PREFIX: "not a prefix" },
        names: /^invalid configuration: TUNNEL_REDIS_PREFIX: redis\.prefix: /,
      },
    ];
    for (const { args, env: runEnv, names } of cases) {
      const result = await run(["accounts", "list", ...args, "--json"], runEnv);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(JSON.parse(result.stderr)).toEqual({
        error: {
          message: expect.stringMatching(names),
          type: "invalid_request_error",
          code: "invalid_request",
        },
      });
    }
  });

  it("print an unexpected failure as one internal_error JSON line with --json, saying what it was", async () => {
    await ok(["accounts", "create", "corrupt", "--balance", "1"]);
    const { id } = (await ok(["keys", "create", "--account", "corrupt", "--name", "k"])) as { id: string };
    // A key record no version of the gateway writes: its models are not JSON.
    const store = await openStore({ prefix: env.TUNNEL_REDIS_PREFIX });
    try {
      await store.redis.hset(store.redisKeys.key("corrupt", id), "models", "{not json");
    } finally {
      store.close();
    }
    const result = await run(["keys", "show", id, "--json"], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: { message: expect.stringMatching(/JSON/), type: "api_error", code: "internal_error" },
    });
    await fails(["keys", "show", id], 1, /^error: .*JSON/);
  });
});

describe("serve", () => {
  it("runs the gateway until SIGTERM and exits 0", async () => {
    await ok(["accounts", "create", "served", "--balance", "10"]);
    const { key } = (await ok(["keys", "create", "--account", "served", "--name", "k"])) as { key: string };
    // Port 0: the system picks a free port, which the gateway reports in its "listening" log line.
    // The suite's Redis persists nothing, which serve refuses unless the configuration allows it.
    const file = configFile("serve.yaml", "redis:\n  allowNoPersistence: true\n");
    const child: ChildProcess = spawn(
      process.execPath,
      [
        CLI,
        "serve",
        "--config",
        file,
        "--port",
        "0",
        "--metrics-port",
        "0",
        "--upstream",
        "http://127.0.0.1:9",
      ],
      { env: { ...process.env, ...env, TUNNEL_CONFIG: "", TUNNEL_LOG_LEVEL: "info" } },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let logged = "";
    child.stdout?.on("data", (chunk: Buffer) => (logged += chunk.toString()));
    const listeningUrl = (): string | undefined =>
      logged
        .split("\n")
        .slice(0, -1) // the last piece is a line still being written
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; url?: string })
        .find((entry) => entry.msg === "tunnel-gateway listening")?.url;
    try {
      // Up to 20 s: a loaded CI machine can be slow to start a Node process.
      await waitUntil(
        () => listeningUrl() !== undefined || child.exitCode !== null,
        "the served gateway to log where it listens",
        20_000,
      );
      const url = listeningUrl();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toMatch(/:0$/);
      // The gateway listens before its Redis connection is up (answering 503 meanwhile), so wait for /readyz.
      await waitUntil(
        async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200,
        "the served gateway to become ready",
        20_000,
      );
      const res = await fetch(`${url}/v1/key`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ account_id: "served", name: "k" });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("refuses a bad --port naming the flag and the setting it overrides, not the configuration file", async () => {
    await fails(
      ["serve", "--port", "http"],
      1,
      /^error: invalid configuration: --port: listen\.port: must be a number\n$/,
    );
    await fails(
      ["serve", "--metrics-port", "80.5"],
      1,
      /^error: invalid configuration: --metrics-port: metrics\.port: must be a whole number\n$/,
    );
  });
});

describe("the command line itself", () => {
  it("prints the package's version with --version", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
    const result = await run(["--version"], env);
    expect(result).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  it("refuses one setting given twice as a usage error, before Redis is reached", async () => {
    const nowhere = { ...env, TUNNEL_REDIS_URL: UNREACHABLE_REDIS };
    const key = "key_aaaaaaaaaaaaaaaaaaaa";
    await fails(
      ["keys", "update", key, "--budget", "5", "--no-budget"],
      2,
      /^error: option '--no-budget' cannot be used with option '--budget <rubles>'\n/,
      nowhere,
    );
    await fails(
      ["keys", "update", key, "--no-budget", "--budget", "5"],
      2,
      /^error: option '--budget <rubles>' cannot be used with option '--no-budget'\n/,
      nowhere,
    );
    await fails(
      ["keys", "update", key, "--log-bodies", "--no-log-bodies"],
      2,
      /^error: option '--no-log-bodies' cannot be used with option '--log-bodies'\n/,
      nowhere,
    );
    await fails(
      ["keys", "update", key, "--budget", "5", "--budget", "6"],
      2,
      /^error: option '--budget <rubles>' may be given only once\n/,
      nowhere,
    );
    await fails(
      ["usage", "--account", "a", "--csv", "--json"],
      2,
      /'--csv' cannot be used with option '--json'/,
      nowhere,
    );
  });

  it("checks a command's arguments before contacting Redis", async () => {
    const nowhere = { ...env, TUNNEL_REDIS_URL: UNREACHABLE_REDIS };
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--budget", "abc"],
      1,
      /^error: budget must be a positive amount in rubles.*got "abc"\n$/,
      nowhere,
    );
    await fails(
      ["keys", "update", "key_aaaaaaaaaaaaaaaaaaaa", "--ttl", "30M"],
      1,
      /^error: lifetime must be a duration .*got "30M"\n$/,
      nowhere,
    );
    await fails(
      ["usage", "--account", "a", "--from", "2026-02-30"],
      1,
      /^error: from must be a date/,
      nowhere,
    );
    await fails(["accounts", "topup", "a", "-5"], 1, /^error: amount must be a positive amount/, nowhere);
    // Arguments that are fine: now Redis is contacted, and its absence reported with the cause.
    await fails(
      ["keys", "create", "--account", "a", "--name", "x", "--budget", "5"],
      1,
      /^error: cannot connect to Redis at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
      nowhere,
    );
  });

  it("lets management commands run whatever is wrong with settings they do not use", async () => {
    await ok(["accounts", "create", "unbothered"]);
    const result = await run(["accounts", "show", "unbothered", "--json"], {
      ...env,
      TUNNEL_PORT: "eighty",
      TUNNEL_UPSTREAM_URL: "http://models:8000/v1",
      TUNNEL_METRICS_PORT: "-1",
    });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ id: "unbothered" });
    // Unknown settings are still refused, whichever command reads the file.
    const typo = configFile("typo.yaml", "listen:\n  prot: 8080\n");
    await fails(["accounts", "list", "--config", typo], 1, /typo\.yaml line 2: unknown setting listen\.prot/);
  });
});

describe("keys list and lifetimes", () => {
  it("lists keys as a table, one line each, telling apart keys of the same name by id and hint", async () => {
    const own = { ...env, TUNNEL_REDIS_PREFIX: testPrefix() };
    await ok(["accounts", "create", "tableco", "--balance", "10"], own);
    const create = (...extra: string[]) =>
      ok(["keys", "create", "--account", "tableco", "--name", "production", ...extra], own) as Promise<{
        id: string;
        key: string;
      }>;
    const first = await create("--budget", "100", "--ttl", "30d");
    const second = await create();
    const third = await create();
    await ok(["keys", "revoke", second.id], own);
    // A key whose lifetime has elapsed: its expiry moved to the past, as time would.
    const store = await openStore({ prefix: own.TUNNEL_REDIS_PREFIX });
    try {
      await store.redis.hset(
        store.redisKeys.key("tableco", third.id),
        "expires_at",
        String(Date.now() - 1000),
      );
    } finally {
      store.close();
    }

    const result = await run(["keys", "list", "--account", "tableco"], own);
    expect(result.code).toBe(0);
    const [header, ...lines] = result.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+HINT\s+NAME\s+STATE\s+LIMITS\s+BUDGET SPENT\/LIMIT\s+EXPIRES$/);
    expect(lines).toHaveLength(3);
    const line = (key: { id: string; key: string }) => lines.find((l) => l.startsWith(key.id)) ?? "";
    expect(line(first)).toMatch(
      new RegExp(
        `^${first.id}\\s+…${first.key.slice(-4)}\\s+production\\s+active\\s+none\\s+0/100 RUB a month\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`,
      ),
    );
    expect(line(second)).toMatch(
      new RegExp(
        `^${second.id}\\s+…${second.key.slice(-4)}\\s+production\\s+revoked\\s+none\\s+none\\s+never$`,
      ),
    );
    expect(line(third)).toMatch(
      new RegExp(`^${third.id}\\s+…${third.key.slice(-4)}\\s+production\\s+expired\\s+none\\s+none\\s+`),
    );
    expect(result.stdout).not.toContain(first.key);
  });

  it("changes a key's lifetime with keys update --ttl, counted from now and audited", async () => {
    const own = { ...env, TUNNEL_REDIS_PREFIX: testPrefix() };
    await ok(["accounts", "create", "ttlco", "--balance", "10"], own);
    const { id } = (await ok(["keys", "create", "--account", "ttlco", "--name", "k"], own)) as { id: string };

    const before = Date.now();
    const extended = (await ok(["keys", "update", id, "--ttl", "30d"], own)) as { expires_at: string };
    const expiresAt = Date.parse(extended.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);

    // An expired key is brought back by a new lifetime.
    const store = await openStore({ prefix: own.TUNNEL_REDIS_PREFIX });
    try {
      await store.redis.hset(store.redisKeys.key("ttlco", id), "expires_at", String(Date.now() - 1000));
      expect((await run(["keys", "list", "--account", "ttlco"], own)).stdout).toMatch(/\bexpired\b/);
      expect(await ok(["keys", "update", id, "--ttl", "never"], own)).toMatchObject({ expires_at: null });
      expect((await run(["keys", "list", "--account", "ttlco"], own)).stdout).toMatch(
        /\bactive\s+none\s+none\s+never$/m,
      );

      const audit = await store.stores.audit.list("ttlco", 10);
      expect(audit.filter((entry) => entry.action === "key.update").map((entry) => entry.details)).toEqual([
        { expires_at: null },
        { expires_at: extended.expires_at },
      ]);
    } finally {
      store.close();
    }
    await fails(
      ["keys", "update", id, "--ttl", "30M"],
      1,
      /units m \(minutes\), h \(hours\), d \(days\), w \(weeks\), lower case/,
      own,
    );
  });
});

describe("usage", () => {
  it("reports an account's requests, tokens, cost and errors per day, summed over its keys to the micro-ruble", async () => {
    const upstream = await startStubUpstream();
    const t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
    try {
      const a = await t.newKey({ accountId: "usageco", balance: "1000" });
      const b = await t.newKey({ accountId: "usageco" });
      const elsewhere = await t.newKey({ accountId: "otherco" });
      const chat = (key: string, words: string) =>
        t.fetch("/v1/chat/completions", {
          method: "POST",
          key,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "demo-small", messages: [{ role: "user", content: words }] }),
        });
      // 2026-11-21: two requests with key a, one with another key; 2026-11-22: one more with key a.
      expect((await chat(a.value, "one two three")).status).toBe(200);
      expect((await chat(a.value, "four five")).status).toBe(200);
      expect((await chat(b.value, "six seven eight nine")).status).toBe(200);
      t.clock.advance(86_400_000);
      expect((await chat(a.value, "ten")).status).toBe(200);
      await t.gateway.settled();
      const spent = 1000 - (await t.store.accountService.show("usageco")).balance / 1_000_000;
      expect(spent).toBeGreaterThan(0);

      const prefixed = { ...env, TUNNEL_REDIS_PREFIX: t.store.prefix };
      const range = ["--from", "2026-11-20", "--to", "2026-11-22"];
      const report = (await ok(["usage", "--account", "usageco", ...range], prefixed)) as {
        days: { date: string; requests: number; cost: number; errors: number }[];
      };
      expect(report).toMatchObject({
        account_id: "usageco",
        key_id: null,
        from: "2026-11-20",
        to: "2026-11-22",
      });
      expect(report.days.map((day) => [day.date, day.requests])).toEqual([
        ["2026-11-20", 0],
        ["2026-11-21", 3],
        ["2026-11-22", 1],
      ]);

      const csv = await run(["usage", "--account", "usageco", ...range, "--csv"], prefixed);
      expect(csv.code).toBe(0);
      const [header, ...rows] = csv.stdout.trimEnd().split("\n");
      expect(header).toBe("date,requests,prompt_tokens,cached_tokens,completion_tokens,cost_rub,errors");
      expect(rows).toHaveLength(3);
      // The costs, added as decimals, are exactly what left the balance.
      const micros = rows.map((row) => {
        const [whole, fraction = ""] = (row.split(",")[5] as string).split(".");
        return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
      });
      expect(micros.reduce((sum, m) => sum + m, 0)).toBe(Math.round(spent * 1_000_000));

      const table = await run(["usage", "--account", "usageco", ...range], prefixed);
      expect(table.stdout).toMatch(
        /^DATE\s+REQUESTS\s+PROMPT TOKENS\s+CACHED TOKENS\s+COMPLETION TOKENS\s+COST RUB\s+ERRORS$/m,
      );
      expect(table.stdout).toMatch(
        new RegExp(
          `^total\\s+4\\s+\\d+\\s+\\d+\\s+\\d+\\s+${String(Math.round(spent * 1e6) / 1e6).replace(".", "\\.")}\\s+0$`,
          "m",
        ),
      );

      const ofKey = (await ok(["usage", "--account", "usageco", "--key", a.id, ...range], prefixed)) as {
        days: { requests: number }[];
      };
      expect(ofKey.days.map((day) => day.requests)).toEqual([0, 2, 1]);
      await fails(
        ["usage", "--account", "usageco", "--key", elsewhere.id, ...range],
        1,
        new RegExp(`^error: account usageco has no key with id ${elsewhere.id}\\n$`),
        prefixed,
      );
    } finally {
      await t.close();
      await upstream.close();
    }
  });
});
