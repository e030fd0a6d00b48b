// What a management command needs: the settings it uses (a bad listen port or upstream URL does not
// concern it), and a Redis connection with the services on top, opened by the first Redis call — after
// the arguments are checked — and always closed. On the suite's Redis, configured through TUNNEL_*.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CommandServices, withServices } from "../../src/cli/command-services.js";
import { freePort } from "../../src/demo/redis-server.js";
import { ACTOR } from "../helpers/actor.js";
import { stubCliEnvironment } from "../helpers/cli.js";
import { openStore } from "../helpers/store.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

const directory = temporaryDirectories("tunnel-services-");
let prefix: string;
beforeEach(() => {
  prefix = stubCliEnvironment();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the configuration of a management command", () => {
  it("takes --redis over TUNNEL_REDIS_URL, and the file given with --config", async () => {
    const file = join(directory(), "gateway.yaml");
    writeFileSync(file, "billing:\n  timezone: Europe/Moscow\n");
    // No Redis call is made: the connection opens with the first one.
    const config = await withServices(
      { redis: "redis://elsewhere:6380", config: file },
      async (s) => s.config,
    );
    expect(config.redis.url).toBe("redis://elsewhere:6380");
    expect(config.billing.timezone).toBe("Europe/Moscow");
    expect((await withServices({}, async (s) => s.config)).redis.url).toBe(process.env.TUNNEL_REDIS_URL);
  });
});

describe("withServices", () => {
  it("runs the work on the configured Redis and prefix, with the services", async () => {
    const created = await withServices({}, async (services) => {
      expect(services.config.redis.prefix).toBe(prefix);
      return services.accounts.create({ id: "acme", balance: "5" }, ACTOR);
    });
    expect(created.balance).toBe(5_000_000);
    const store = await openStore({ prefix });
    try {
      expect((await store.accounts.require("acme")).balance).toBe(5_000_000);
    } finally {
      store.close();
    }
  });

  it("closes the connection when the work is done, and when it fails", async () => {
    let kept: CommandServices | undefined;
    await withServices({}, async (services) => {
      kept = services;
      await services.accounts.list();
    });
    await expect(kept!.accounts.list()).rejects.toThrow(/Connection is closed/);
    await expect(
      withServices({}, async (services) => {
        kept = services;
        await services.accounts.show("ghost");
      }),
    ).rejects.toMatchObject({ code: "account_not_found" });
    await expect(kept!.accounts.list()).rejects.toThrow(/Connection is closed/);
  });

  it("says which Redis it could not reach and why, never a bare 'Connection is closed.'", async () => {
    const port = await freePort();
    vi.stubEnv("TUNNEL_REDIS_URL", `redis://:secret@127.0.0.1:${port}`);
    await expect(withServices({}, (services) => services.accounts.list())).rejects.toMatchObject({
      code: "service_unavailable",
      message: `cannot connect to Redis at redis://:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it("reports a bad argument as such even while Redis is down", async () => {
    vi.stubEnv("TUNNEL_REDIS_URL", `redis://127.0.0.1:${await freePort()}`);
    await expect(
      withServices({}, (services) => services.accounts.create({ id: "Not An Id" }, ACTOR)),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("runs whatever is wrong with settings it does not use, and refuses bad ones it does", async () => {
    vi.stubEnv("TUNNEL_PORT", "not-a-port");
    vi.stubEnv("TUNNEL_UPSTREAM_URL", "ftp://models");
    expect(await withServices({}, async (services) => (await services.accounts.list()).length)).toBe(0);
    vi.stubEnv("TUNNEL_BILLING_TIMEZONE", "Mars/Olympus");
    await expect(withServices({}, async () => {})).rejects.toThrow(
      /TUNNEL_BILLING_TIMEZONE: billing\.timezone/,
    );
  });
});
