import { afterEach, describe, expect, inject, it } from "vitest";
import { closeRedis, connectRedis, createRedis, type RedisClient } from "../../src/store/connection/redis.js";
import {
  expandIncludes,
  loadScripts,
  observeScriptErrors,
  runScript,
  SCRIPT_NAMES,
} from "../../src/store/scripts.js";

describe("Lua script loading", () => {
  it("expands includes in dependency order, each fragment once", () => {
    const fragments: Record<string, string> = {
      a: '--- @include "b"\nlocal function a() return b() end',
      b: "local function b() return 1 end",
    };
    const lua = expandIncludes(
      '--- @include "a"\n--- @include "b"\nreturn a()',
      (name) => fragments[name] as string,
    );
    expect(lua).toBe("local function b() return 1 end\nlocal function a() return b() end\n\nreturn a()");
  });

  it("names each script by its file and takes its number of keys from the name (n: the caller's count)", () => {
    const scripts = new Map(loadScripts().map((s) => [s.name, s]));
    expect(scripts.get("reserve")?.numberOfKeys).toBe(5);
    expect(scripts.get("settle")?.numberOfKeys).toBeNull();
    for (const script of scripts.values()) {
      expect(script.lua).not.toContain("@include");
      // Every script documents its keys and arguments in its header.
      expect(script.lua).toMatch(/^--\[\[/);
      expect(script.lua).toContain(script.numberOfKeys !== 0 ? "KEYS[1]" : "");
    }
  });

  it("lists every script by name, and no other (the script-errors metric has a series for each)", () => {
    expect([...SCRIPT_NAMES].sort()).toEqual(
      loadScripts()
        .map((s) => s.name)
        .sort(),
    );
  });
});

describe("script errors", () => {
  let redis: RedisClient | undefined;
  afterEach(() => {
    if (redis) closeRedis(redis);
    redis = undefined;
  });

  async function observed() {
    const settings = { url: inject("redisUrl") };
    redis = createRedis(settings, "gateway");
    await connectRedis(redis, settings);
    const seen: [string, string][] = [];
    observeScriptErrors(redis, (script, error) => seen.push([script, error.message]));
    return { redis, seen };
  }

  it("are reported to the connection's observer with the script's name, and the caller still gets them", async () => {
    const { redis, seen } = await observed();
    // Arguments that do not make whole settlements: the script refuses them with an error of its own.
    await expect(runScript(redis, "settle", ["k1", "k2", "k3", "k4", "k5", "k6"], [])).rejects.toThrow(
      /do not make whole settlements/,
    );
    // A key of the wrong type: a Lua error inside the script.
    const prefix = `test:scripts:${Date.now()}:`;
    await (redis as import("ioredis").Redis).set(`${prefix}{a:x}:resv`, "not a sorted set");
    await expect(
      runScript(redis, "extendReservations", [`${prefix}{a:x}:resv`], [Date.now(), "r1"]),
    ).rejects.toThrow(/WRONGTYPE/);
    await (redis as import("ioredis").Redis).del(`${prefix}{a:x}:resv`);
    await expect(runScript(redis, "reserve", ["only one"], [])).rejects.toThrow(
      "script reserve takes 5 keys, got 1",
    );
    expect(seen.map(([script]) => script)).toEqual(["settle", "extendReservations", "reserve"]);
    expect(seen[2]?.[1]).toBe("script reserve takes 5 keys, got 1");
  });

  it("are not reported when Redis could not be reached: that is an outage, not a script's failure", async () => {
    const { redis, seen } = await observed();
    closeRedis(redis);
    await expect(runScript(redis, "settle", ["a", "b", "c", "d", "e", "f"], [])).rejects.toThrow();
    expect(seen).toEqual([]);
  });
});
