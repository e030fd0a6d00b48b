// The tunnel-gateway binary end to end: `node dist/cli.js …` in a child process against the suite's Redis,
// as an operator would run it. `npm test` builds dist/ first.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { openStore, testPrefix } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
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
      budget: { period: "month", initial: 1000, spent: 0, remaining: 1000, reset_at: expect.any(String) },
      currency: "RUB",
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
      { ...view, revoked_at: revoked.revoked_at },
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
      { ...nowhere, TUNNEL_PORT: "http" },
    );
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
      budget: { initial: 7.5, period: "day" },
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

describe("configuration and connection errors", () => {
  const temporaryDirectory = temporaryDirectories("tunnel-cli-");

  it("report a bad configuration file with the field and no stack trace", async () => {
    const file = join(temporaryDirectory(), "bad.yaml");
    writeFileSync(file, "listen:\n  port: -1\n");
    await fails(["accounts", "list", "--config", file], 1, /invalid configuration .*bad\.yaml.*listen\.port/);
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
    const file = join(temporaryDirectory(), "bad.yaml");
    writeFileSync(file, "listen:\n  port: -1\n");
    const cases: { args: string[]; env: Record<string, string>; names: RegExp }[] = [
      { args: ["--config", file], env, names: /bad\.yaml.*listen\.port/ },
      { args: ["--redis", "ftp://r:6379"], env, names: /--redis \(redis\.url\)/ },
      { args: [], env: { ...env, TUNNEL_PORT: "http" }, names: /TUNNEL_PORT \(listen\.port\)/ },
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
    const child: ChildProcess = spawn(
      process.execPath,
      [CLI, "serve", "--port", "0", "--upstream", "http://127.0.0.1:9"],
      {
        env: {
          ...process.env,
          ...env,
          TUNNEL_CONFIG: "",
          TUNNEL_LOG_LEVEL: "info",
          TUNNEL_METRICS_PORT: "0",
        },
      },
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

  it("refuses a bad --port with the setting it overrides", async () => {
    await fails(["serve", "--port", "http"], 1, /--port \(listen\.port\)/);
  });
});
