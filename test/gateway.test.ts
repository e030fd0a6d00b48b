// The composition root, in this process: what startGateway decides itself — a TLS pair that does not load
// refused as configuration before anything starts, every listener or none, the listeners answering 503 but
// the probes until Redis has passed its checks, their addresses, and a close that stops everything once.
// (The behaviours it wires together have their own tests; whole scenarios are in test/e2e/.)

import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, inject, it } from "vitest";
import { ConfigError } from "../src/config/config-error.js";
import { type ConfigInput, configSchema } from "../src/config/schema.js";
import { isPortFree } from "../src/demo/ports.js";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { startGateway } from "../src/gateway.js";
import { makeCertificate } from "./helpers/certificate.js";
import { captureLogs } from "./helpers/logs.js";
import { testPrefix } from "./helpers/store.js";
import { temporaryDirectories } from "./helpers/temp-dir.js";
import { waitUntil } from "./helpers/wait.js";

const directory = temporaryDirectories("tunnel-gateway-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(input: ConfigInput = {}) {
  return configSchema.parse({
    ...input,
    listen: { host: "127.0.0.1", port: 0, ...input.listen },
    upstream: { url: "http://127.0.0.1:9", ...input.upstream },
    redis: { url: inject("redisUrl"), prefix: testPrefix(), allowNoPersistence: true, ...input.redis },
    metrics: { host: "127.0.0.1", port: 0, ...input.metrics },
    admin: { host: "127.0.0.1", port: 0, ...input.admin },
  });
}

async function start(input: ConfigInput = {}, origin?: (setting: string) => string) {
  const logs = captureLogs("info");
  const gateway = await startGateway({
    config: config(input),
    logger: logs.logger,
    ...(origin && { origin }),
  });
  cleanups.push(() => gateway.close(0));
  return { gateway, logs };
}

async function occupiedPort(): Promise<number> {
  const blocker: Server = createServer();
  blocker.listen(0, "127.0.0.1");
  await once(blocker, "listening");
  cleanups.push(() => void blocker.close());
  return (blocker.address() as { port: number }).port;
}

describe("startGateway", () => {
  it("refuses a TLS pair that does not load as configuration, naming both settings and their origins, before binding", async () => {
    const one = makeCertificate("one", directory());
    const other = makeCertificate("other", directory());
    const port = await freePort();
    const failure = await startGateway({
      config: config({ listen: { port }, tls: { certFile: one.certFile, keyFile: other.keyFile } }),
      logger: captureLogs().logger,
      origin: (setting) => (setting === "tls.certFile" ? "TUNNEL_TLS_CERT_FILE" : "/etc/g.yaml line 4"),
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(
      new RegExp(
        `^cannot load the TLS certificate and key \\(tls\\.certFile ${one.certFile} from TUNNEL_TLS_CERT_FILE, ` +
          `tls\\.keyFile ${other.keyFile} from /etc/g\\.yaml line 4\\): .*key values mismatch$`,
      ),
    );
    expect(await isPortFree(port)).toBe(true);
  });

  it("serves HTTPS with a pair that loads", async () => {
    const pair = makeCertificate("gateway", directory());
    const { gateway } = await start({ tls: { certFile: pair.certFile, keyFile: pair.keyFile } });
    expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect("setSecureContext" in gateway.server).toBe(true);
  });

  it("binds every listener or none, naming the one that could not bind and where its port was set", async () => {
    const taken = await occupiedPort();
    const publicPort = await freePort();
    const metricsPort = await freePort();
    const failure = await startGateway({
      config: config({
        listen: { port: publicPort },
        metrics: { port: metricsPort },
        admin: { token: "admin-token-0123456789", port: taken },
      }),
      logger: captureLogs().logger,
      origin: (setting) => (setting === "admin.port" ? "--admin-port" : "default"),
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: "service_unavailable",
      message: `cannot listen for the admin API on 127.0.0.1:${taken}: the port is in use by another process (admin.port ${taken} from --admin-port)`,
    });
    expect(await isPortFree(publicPort)).toBe(true);
    expect(await isPortFree(metricsPort)).toBe(true);
  });

  it("opens metrics and admin listeners only when configured, and gives every listener's URL", async () => {
    const { gateway, logs } = await start({ metrics: { enabled: false } });
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(gateway.metricsUrl).toBeNull();
    expect(gateway.adminUrl).toBeNull();
    expect(logs.messages()).toContain(
      "admin API and dashboard disabled: set admin.token (TUNNEL_ADMIN_TOKEN), or let people sign in (signIn.local.enabled, signIn.providers), to enable them",
    );
    const both = await start({ listen: { host: "::1" }, admin: { token: "admin-token-0123456789" } });
    expect(both.gateway.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(both.gateway.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(both.gateway.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers 503 on the public and admin listeners, but the probes, until Redis has passed its checks", async () => {
    const port = await freePort();
    const { gateway } = await start({
      redis: { url: `redis://127.0.0.1:${port}` },
      admin: { token: "admin-token-0123456789" },
    });
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    const readyz = await fetch(`${gateway.url}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ status: "unavailable", reason: "redis unavailable" });
    expect((await fetch(`${gateway.url}/v1/key`)).status).toBe(503);
    expect((await fetch(`${gateway.adminUrl}/admin/v1/me`)).status).toBe(503);

    const redis = await startRedisServer({ port });
    cleanups.push(() => redis.stop());
    await gateway.serving;
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/key`)).status).toBe(401);
    expect((await fetch(`${gateway.adminUrl}/admin/v1/me`)).status).toBe(401);
  });

  it("closes once: readiness and listeners go, Redis is disconnected, and a second close does nothing", async () => {
    const { gateway } = await start({ admin: { token: "admin-token-0123456789" } });
    await gateway.serving;
    const { url, adminUrl, metricsUrl } = gateway;
    await gateway.close(0);
    await waitUntil(() => gateway.redis.status === "end", "the Redis connection to end");
    expect(gateway.server.listening).toBe(false);
    for (const base of [url, adminUrl, metricsUrl])
      await expect(fetch(`${base}/healthz`)).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } });
    await gateway.close(0);
  });
});
