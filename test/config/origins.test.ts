// Where each setting came from — the last flag or variable that set it, else its line in the file, else
// the built-in default — so that a message about a setting sends the reader to the place to change it.

import { describe, expect, it } from "vitest";
import { LineCounter, parseDocument } from "yaml";
import { originsBySetting, SettingOrigins } from "../../src/config/origins.js";

const FILE = "/etc/tunnel/gateway.yaml";
const YAML = `# the gateway
listen:
  port: 8080

redis:
  url: redis://r:6379
  cluster:
    nodes:
      - a:7000
      - b:7000
pricing:
  models:
    "gpt-x": { input: 1, output: 2 }
`;

function origins(overrides: ConstructorParameters<typeof SettingOrigins>[3] = []): SettingOrigins {
  const lines = new LineCounter();
  const document = parseDocument(YAML, { lineCounter: lines });
  return new SettingOrigins(FILE, document, lines, overrides);
}

describe("SettingOrigins", () => {
  it("names the file and line of a setting written there, and of an item in a list", () => {
    const o = origins();
    expect(o.of(["listen", "port"])).toBe(`${FILE} line 3`);
    expect(o.of(["redis"])).toBe(`${FILE} line 5`);
    expect(o.of(["redis", "url"])).toBe(`${FILE} line 6`);
    expect(o.of(["redis", "cluster", "nodes", 1])).toBe(`${FILE} line 10`);
    expect(o.of(["pricing", "models", "gpt-x"])).toBe(`${FILE} line 13`);
  });

  it("names the flag or variable that set it, the last one applied winning", () => {
    const o = origins([
      { path: ["listen", "port"], value: 9000, source: "TUNNEL_PORT" },
      { path: ["listen", "port"], value: 9001, source: "--port" },
      { path: ["metrics", "port"], value: 9464, source: "TUNNEL_METRICS_PORT" },
    ]);
    expect(o.of(["listen", "port"])).toBe("--port");
    expect(o.of(["metrics", "port"])).toBe("TUNNEL_METRICS_PORT");
    expect(o.of(["listen"])).toBe(`${FILE} line 2`);
  });

  it("calls a setting written nowhere the default", () => {
    const o = origins();
    expect(o.of(["listen", "host"])).toBe("default");
    expect(o.of(["admin", "port"])).toBe("default");
    expect(o.of(["redis", "cluster", "nodes", 5])).toBe("default");
    expect(o.of([])).toBe("default");
    expect(new SettingOrigins(FILE, null, null, []).of(["listen", "port"])).toBe("default");
  });

  it("places a problem with a setting missing from the file at the nearest section that is there", () => {
    const o = origins([{ path: ["admin", "token"], value: "x", source: "TUNNEL_ADMIN_TOKEN" }]);
    expect(o.near(["listen", "host"])).toBe(`${FILE} line 2`);
    expect(o.near(["redis", "cluster", "password"])).toBe(`${FILE} line 7`);
    expect(o.near(["admin", "token", "length"])).toBe("TUNNEL_ADMIN_TOKEN");
    expect(o.near(["shutdown", "drainSeconds"])).toBe("default");
    expect(o.ofKey(["listen"], "prot")).toBe(`${FILE} line 2`);
    expect(o.ofKey([], "listen")).toBe(`${FILE} line 2`);
  });
});

describe("originsBySetting", () => {
  it("writes out what `of` answers for every setting of a configuration, sections and list items included", () => {
    const o = origins([{ path: ["listen", "host"], value: "0.0.0.0", source: "TUNNEL_HOST" }]);
    const config = {
      listen: { host: "0.0.0.0", port: 8080 },
      redis: { url: "redis://r:6379", cluster: { nodes: ["a:7000", "b:7000"] } },
      shutdown: { drainSeconds: 30 },
    };
    expect(originsBySetting(config, o)).toEqual({
      listen: `${FILE} line 2`,
      "listen.host": "TUNNEL_HOST",
      "listen.port": `${FILE} line 3`,
      redis: `${FILE} line 5`,
      "redis.url": `${FILE} line 6`,
      "redis.cluster": `${FILE} line 7`,
      "redis.cluster.nodes": `${FILE} line 8`,
      "redis.cluster.nodes.0": `${FILE} line 9`,
      "redis.cluster.nodes.1": `${FILE} line 10`,
      shutdown: "default",
      "shutdown.drainSeconds": "default",
    });
  });

  it("leaves out a key holding a dot, which no dotted path can name, and what is under it", () => {
    const table = originsBySetting({ pricing: { models: { "llama-3.1": { input: 1 } } } }, origins());
    expect(table).toEqual({ pricing: `${FILE} line 11`, "pricing.models": `${FILE} line 12` });
  });
});
