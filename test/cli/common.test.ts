// What every command shares: the common options, the version, the usage errors found before anything is
// loaded (exit 2), and one setting given twice refused rather than the last one silently winning.

import { readFileSync } from "node:fs";
import { type Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import {
  CLI,
  common,
  EXIT_FAILURE,
  EXIT_USAGE,
  numeric,
  redisFlagOverride,
  usageError,
  version,
} from "../../src/cli/common.js";
import { loadConfig } from "../../src/config/load.js";
import { runCli, usageOf } from "../helpers/cli.js";

function program(): (p: Command) => void {
  return (p) => {
    const keys = p.command("keys");
    keys
      .command("update <keyId>")
      .option("--budget <rubles>")
      .option("--no-budget")
      .option("--log-bodies")
      .option("--no-log-bodies")
      .option("--name <name>")
      .action(() => {});
    common(p.command("show")).action(() => {});
  };
}

describe("refuseRepeatedOptions", () => {
  it("refuses one option given twice, naming it, as a usage error", async () => {
    const run = await runCli(program(), ["keys", "update", "key_a", "--budget", "5", "--budget", "6"]);
    expect(usageOf(run)).toMatchObject({
      exitCode: EXIT_USAGE,
      code: "usage.repeated",
      message: "error: option '--budget <rubles>' may be given only once",
    });
  });

  it("refuses an option and its negation together, in either order", async () => {
    const first = await runCli(program(), ["keys", "update", "key_a", "--budget", "5", "--no-budget"]);
    expect(usageOf(first).message).toBe(
      "error: option '--no-budget' cannot be used with option '--budget <rubles>'",
    );
    const second = await runCli(program(), ["keys", "update", "key_a", "--no-log-bodies", "--log-bodies"]);
    expect(usageOf(second).message).toBe(
      "error: option '--log-bodies' cannot be used with option '--no-log-bodies'",
    );
  });

  it("lets each setting be given once, on every command", async () => {
    const run = await runCli(program(), [
      "keys",
      "update",
      "key_a",
      "--budget",
      "5",
      "--no-log-bodies",
      "--name",
      "n",
    ]);
    expect(run.error).toBeNull();
    expect((await runCli(program(), ["show", "--json", "--redis", "redis://r"])).error).toBeNull();
    expect(usageOf(await runCli(program(), ["show", "--json", "--json"])).code).toBe("usage.repeated");
  });
});

describe("common", () => {
  it("gives a command --config, --redis and --json", async () => {
    let seen: Record<string, unknown> = {};
    const run = await runCli(
      (p) => {
        common(p.command("show")).action((options) => {
          seen = options;
        });
      },
      ["show", "--config", "/etc/g.yaml", "--redis", "redis://r:6379", "--json"],
    );
    expect(run.error).toBeNull();
    expect(seen).toEqual({ config: "/etc/g.yaml", redis: "redis://r:6379", json: true });
  });
});

describe("usageError", () => {
  it("throws a usage error of exit code 2, worded as commander words its own", () => {
    expect(() => usageError("--period needs --budget")).toThrow(CommanderError);
    try {
      usageError("--period needs --budget");
    } catch (error) {
      expect(error).toMatchObject({ exitCode: 2, code: "usage", message: "error: --period needs --budget" });
    }
    expect([EXIT_FAILURE, EXIT_USAGE]).toEqual([1, 2]);
  });
});

describe("numeric", () => {
  it("turns numbers into numbers, and leaves anything else as text for the schema to refuse by name", () => {
    expect(numeric("8080")).toBe(8080);
    expect(numeric(" 8080 ")).toBe(8080);
    expect(numeric("0")).toBe(0);
    expect(numeric("1.5")).toBe(1.5);
    for (const text of ["", "  ", "eighty", "80a", "Infinity", "NaN"]) expect(numeric(text)).toBe(text);
  });
});

describe("version and actor", () => {
  it("reports the package's version, and records changes as made by the cli", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(version()).toBe(pkg.version);
    expect(CLI).toEqual({ kind: "cli" });
  });
});

describe("redisFlagOverride", () => {
  it("makes --redis the redis.url in effect, over TUNNEL_REDIS_URL, and names it as where the URL came from", () => {
    const overrides = redisFlagOverride({ redis: "redis://elsewhere:6380" });
    const { config, origins } = loadConfig({ env: { TUNNEL_REDIS_URL: "redis://env:6379" }, overrides });
    expect(config.redis.url).toBe("redis://elsewhere:6380");
    expect(origins.of(["redis", "url"])).toBe("--redis");
    expect(redisFlagOverride({})).toEqual([]);
  });
});
