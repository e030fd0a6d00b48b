import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../src/config/config-error.js";
import { DEFAULT_CONFIG_FILE, loadConfig } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";

/** What `run` throws; the assertions on it stay outside any catch, so that no throw skips them. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw, but it returned");
}

const temporaryDirectory = temporaryDirectories("tunnel-config-");

function file(yaml: string): string {
  const dir = temporaryDirectory();
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

describe("config/default.yaml", () => {
  it("holds exactly the schema's defaults", () => {
    const documented = configSchema.parse(parseYaml(readFileSync(DEFAULT_CONFIG_FILE, "utf8")));
    expect(documented).toEqual(configSchema.parse({}));
  });

  it("has the settings other parts depend on, under these names", () => {
    const { config } = loadConfig({ env: {} });
    expect(config.listen.port).toBe(8080);
    expect(config.upstream.url).toBe("http://127.0.0.1:8000");
    expect(config.redis.url).toBe("redis://127.0.0.1:6379");
    expect(config.metrics.port).toBe(9464);
    expect(config.billing.timezone).toBe("UTC");
    expect(config.pricing.default).toMatchObject({ input: 100_000_000, output: 300_000_000 });
    expect(typeof config.redis.prefix).toBe("string");
    expect(typeof config.listen.host).toBe("string");
  });
});

describe("loadConfig", () => {
  it("replaces the default file with --config, filling what it leaves out with defaults", () => {
    const { config } = loadConfig({
      file: file(
        "listen:\n  port: 9000\npricing:\n  models:\n    llama:\n      input: 1.5\n      output: '2.25'\n",
      ),
      env: {},
    });
    expect(config.listen.port).toBe(9000);
    expect(config.listen.host).toBe("127.0.0.1");
    expect(config.pricing.models.llama).toEqual({ input: 1_500_000, output: 2_250_000 });
  });

  it("takes the file from TUNNEL_CONFIG when no --config is given", () => {
    const path = file("listen:\n  port: 9100\n");
    expect(loadConfig({ env: { TUNNEL_CONFIG: path } }).config.listen.port).toBe(9100);
  });

  it("lets TUNNEL_* variables override single settings, and flags override both", () => {
    const env = {
      TUNNEL_PORT: "9200",
      TUNNEL_UPSTREAM_URL: "http://model:8000",
      TUNNEL_REDIS_URL: "redis://r:6379",
    };
    const { config } = loadConfig({ file: file("listen:\n  port: 9000\n"), env });
    expect(config.listen.port).toBe(9200);
    expect(config.upstream.url).toBe("http://model:8000");
    expect(config.redis.url).toBe("redis://r:6379");
    const flagged = loadConfig({
      env,
      overrides: [{ path: ["listen", "port"], value: 9300, source: "--port" }],
    });
    expect(flagged.config.listen.port).toBe(9300);
  });

  it("names the path and the reason of a bad value", () => {
    const path = file("listen:\n  port: eighty\nbilling:\n  timezone: Mars/Base\n");
    const thrown = thrownBy(() => loadConfig({ file: path, env: {} }));
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).toContain(path);
    expect(message).toMatch(/listen\.port: .*number/);
    expect(message).toMatch(/billing\.timezone: must be an IANA time zone/);
    expect(message).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("names the variable when an environment override is bad", () => {
    expect(() => loadConfig({ env: { TUNNEL_PORT: "http" } })).toThrow(/TUNNEL_PORT \(listen\.port\)/);
  });

  it("names the flag, not the variable it overrides, when the flag's value is bad", () => {
    expect(() =>
      loadConfig({
        env: { TUNNEL_PORT: "9000" },
        overrides: [{ path: ["listen", "port"], value: "http", source: "--port" }],
      }),
    ).toThrow(/: --port \(listen\.port\): /);
  });

  it("refuses unknown settings, so that a typo does not pass silently", () => {
    expect(() => loadConfig({ file: file("listen:\n  prot: 80\n"), env: {} })).toThrow(
      /unknown setting listen\.prot/,
    );
  });

  it("refuses a bad price with the path to it", () => {
    expect(() =>
      loadConfig({ file: file("pricing:\n  models:\n    m:\n      input: -1\n      output: 1\n"), env: {} }),
    ).toThrow(/pricing\.models\.m\.input: must be a non-negative amount/);
  });

  it("says so when the file is missing or not YAML", () => {
    expect(() => loadConfig({ file: "/nonexistent/tunnel.yaml", env: {} })).toThrow(
      /cannot read configuration file .*no such file/,
    );
    expect(() => loadConfig({ file: file("listen: [\n"), env: {} })).toThrow(/is not valid YAML/);
    expect(() => loadConfig({ file: file("- a\n- b\n"), env: {} })).toThrow(/mapping of settings/);
  });
});

describe("Redis topologies in the configuration", () => {
  it("take Cluster seed nodes or a Sentinel, and secrets from the environment", () => {
    const cluster = loadConfig({
      file: file("redis:\n  cluster:\n    nodes: [redis-0:6379, '[fd00::1]:6380']\n"),
      env: { TUNNEL_REDIS_PASSWORD: "pw", TUNNEL_REDIS_USERNAME: "gateway" },
    }).config.redis;
    expect(cluster).toMatchObject({
      cluster: { nodes: ["redis-0:6379", "[fd00::1]:6380"] },
      password: "pw",
      username: "gateway",
    });
    const sentinel = loadConfig({
      file: file("redis:\n  sentinel:\n    sentinels: [s1:26379]\n    name: mymaster\n"),
      env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "spw" },
    }).config.redis;
    expect(sentinel.sentinel).toEqual({ sentinels: ["s1:26379"], name: "mymaster", password: "spw" });
  });

  it("refuse both at once, and malformed nodes", () => {
    expect(() =>
      loadConfig({
        file: file("redis:\n  cluster: {nodes: [a:1]}\n  sentinel: {sentinels: [b:2], name: m}\n"),
        env: {},
      }),
    ).toThrow(/either cluster or sentinel/);
    expect(() => loadConfig({ file: file("redis:\n  cluster: {nodes: [nohostport]}\n"), env: {} })).toThrow(
      /redis\.cluster\.nodes\.0: must be host:port/,
    );
    expect(() => loadConfig({ file: file("tls:\n  certFile: /a.crt\n"), env: {} })).toThrow(
      /certFile and keyFile go together/,
    );
    expect(() => loadConfig({ file: file("security:\n  trustedProxies: [10.0.0.0/33]\n"), env: {} })).toThrow(
      /security\.trustedProxies\.0: must be a CIDR/,
    );
    expect(() => loadConfig({ env: { TUNNEL_ADMIN_TOKEN: "short" } })).toThrow(
      /TUNNEL_ADMIN_TOKEN \(admin\.token\): must be at least 16/,
    );
  });

  it("refuse a Sentinel password from the environment when no Sentinel is configured, naming the variable", () => {
    const single = file("redis:\n  url: redis://r:6379\n");
    expect(() => loadConfig({ file: single, env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "spw" } })).toThrow(
      new ConfigError(
        `invalid configuration (${single}): TUNNEL_REDIS_SENTINEL_PASSWORD (redis.sentinel.password) is set, ` +
          "but no redis.sentinel is configured: configure redis.sentinel in the file, " +
          "or unset TUNNEL_REDIS_SENTINEL_PASSWORD",
      ),
    );
    // Empty counts as unset, as for every variable: a chart may pass an empty optional secret.
    expect(
      loadConfig({ file: single, env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "" } }).config.redis.sentinel,
    ).toBe(undefined);
  });
});
