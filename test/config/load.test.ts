import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
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
    expect(config.redis.prefix).toBe("tg:");
    expect(config.listen.host).toBe("127.0.0.1");
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

  it("names the variable, not the file, when an environment override is bad", () => {
    expect(() => loadConfig({ env: { TUNNEL_PORT: "http" } })).toThrow(
      new ConfigError("invalid configuration: TUNNEL_PORT: listen.port: must be a number"),
    );
  });

  it("names the flag, not the variable it overrides nor the file, when the flag's value is bad", () => {
    expect(() =>
      loadConfig({
        env: { TUNNEL_PORT: "9000" },
        overrides: [{ path: ["listen", "port"], value: "http", source: "--port" }],
      }),
    ).toThrow(new ConfigError("invalid configuration: --port: listen.port: must be a number"));
  });

  it("names the file and the line of a bad setting", () => {
    const path = file("# the gateway\nlisten:\n  host: 0.0.0.0\n  port: 80.5\nlogging:\n  level: loud\n");
    expect(() => loadConfig({ file: path, env: {} })).toThrow(
      new ConfigError(
        `invalid configuration: ${path} line 4: listen.port: must be a whole number; ` +
          `${path} line 6: logging.level: must be one of trace, debug, info, warn, error, fatal, silent`,
      ),
    );
  });

  it.each([
    ["listen:\n  port: eighty\n", "listen.port: must be a number"],
    ["listen:\n  port: -1\n", "listen.port: must be at least 0"],
    ["listen:\n  port: 70000\n", "listen.port: must be at most 65535"],
    ["listen:\n  host: ''\n", "listen.host: must not be empty"],
    ["metrics:\n  enabled: 'yes'\n", "metrics.enabled: must be true or false"],
    ["security:\n  trustedProxies: 10.0.0.0/8\n", "security.trustedProxies: must be a list"],
    ["listen: 8080\n", "listen: must be a mapping of settings"],
    ["estimate:\n  reserveBytesPerToken: 0\n", "estimate.reserveBytesPerToken: must be more than 0"],
    ["redis:\n  sentinel:\n    sentinels: [s:26379]\n", "redis.sentinel.name: required"],
    ["pricing:\n  models:\n    m:\n      input: 1\n", "pricing.models.m.output: required"],
    [
      "pricing:\n  default:\n    input: true\n",
      "pricing.default.input: must be an amount such as 100 or 12.5",
    ],
  ])("words zod's checks as the documentation does: %j", (yaml, message) => {
    const thrown = thrownBy(() => loadConfig({ file: file(yaml), env: {} }));
    expect((thrown as Error).message).toMatch(
      new RegExp(`line \\d+: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
    );
  });

  it("places a required setting that is missing at the line of its section", () => {
    const path = file("pricing:\n  models:\n    small:\n      input: 1\n");
    expect(() => loadConfig({ file: path, env: {} })).toThrow(
      new ConfigError(`invalid configuration: ${path} line 3: pricing.models.small.output: required`),
    );
  });

  it("never repeats the value of a bad setting, which may be a secret", () => {
    const thrown = thrownBy(() => loadConfig({ env: { TUNNEL_ADMIN_TOKEN: "s3cret-short" } }));
    expect((thrown as Error).message).not.toContain("s3cret");
  });

  it("refuses unknown settings, so that a typo does not pass silently, naming their line", () => {
    const path = file("listen:\n  port: 80\n  prot: 80\n");
    expect(() => loadConfig({ file: path, env: {} })).toThrow(
      new ConfigError(`invalid configuration: ${path} line 3: unknown setting listen.prot`),
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
      /TUNNEL_ADMIN_TOKEN: admin\.token: must be at least 16/,
    );
  });

  it("refuse a Sentinel password from the environment when no Sentinel is configured, naming the variable", () => {
    const single = file("redis:\n  url: redis://r:6379\n");
    expect(() => loadConfig({ file: single, env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "spw" } })).toThrow(
      new ConfigError(
        `invalid configuration: TUNNEL_REDIS_SENTINEL_PASSWORD: redis.sentinel.password is set, but ${single} ` +
          "configures no redis.sentinel: configure redis.sentinel in the file, " +
          "or unset TUNNEL_REDIS_SENTINEL_PASSWORD",
      ),
    );
    // Empty counts as unset, as for every variable: a chart may pass an empty optional secret.
    expect(
      loadConfig({ file: single, env: { TUNNEL_REDIS_SENTINEL_PASSWORD: "" } }).config.redis.sentinel,
    ).toBe(undefined);
  });
});

describe("settings a file leaves out", () => {
  /** Every setting of config/default.yaml with its path, down to the leaves. */
  function leaves(node: unknown, path: string[] = []): { path: string[]; value: unknown }[] {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return [{ path, value: node }];
    const entries = Object.entries(node);
    if (entries.length === 0) return [{ path, value: node }];
    return entries.flatMap(([key, value]) => leaves(value, [...path, key]));
  }

  it("keep their defaults at every depth: a file may set any one setting alone", () => {
    const defaults = parseYaml(readFileSync(DEFAULT_CONFIG_FILE, "utf8"));
    const all = leaves(defaults);
    expect(all.map((leaf) => leaf.path.join("."))).toContain("pricing.default.input");
    for (const { path, value } of all) {
      const single = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
      expect(() => loadConfig({ file: file(stringifyYaml(single)), env: {} }), path.join(".")).not.toThrow();
    }
  });

  it("a price of its own: pricing.default.input alone keeps the default output price", () => {
    const { config } = loadConfig({ file: file("pricing:\n  default:\n    input: 10\n"), env: {} });
    expect(config.pricing.default).toMatchObject({
      input: 10_000_000,
      output: 300_000_000,
      maxOutputTokens: 4096,
    });
  });
});

describe("loading only the sections a command uses", () => {
  const MANAGEMENT: ("redis" | "billing")[] = ["redis", "billing"];

  it("ignores bad settings of other sections, from the environment or the file", () => {
    const loaded = loadConfig({
      file: file("listen:\n  port: eighty\nbilling:\n  timezone: Europe/Moscow\n"),
      env: { TUNNEL_PORT: "eighty", TUNNEL_UPSTREAM_URL: "nonsense", TUNNEL_REDIS_URL: "redis://r:6379/2" },
      sections: MANAGEMENT,
    });
    expect(loaded.config.redis.url).toBe("redis://r:6379/2");
    expect(loaded.config.billing.timezone).toBe("Europe/Moscow");
  });

  it("still refuses bad settings of the sections it uses", () => {
    expect(() => loadConfig({ env: { TUNNEL_REDIS_PREFIX: "a b" }, sections: MANAGEMENT })).toThrow(
      /TUNNEL_REDIS_PREFIX: redis\.prefix: may contain only/,
    );
  });

  it("still refuses unknown settings anywhere", () => {
    const path = file("listen:\n  prot: 80\nmystery: 1\n");
    expect(() => loadConfig({ file: path, env: {}, sections: MANAGEMENT })).toThrow(
      new ConfigError(
        `invalid configuration: ${path} line 2: unknown setting listen.prot; ${path} line 3: unknown setting mystery`,
      ),
    );
  });
});
