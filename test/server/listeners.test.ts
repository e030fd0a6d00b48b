// Binding the gateway's listeners all or none: a failure closes those already bound and says which address
// could not be had, why, and which setting chose it from where.

import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayError } from "../../src/core/errors.js";
import { freePort } from "../../src/demo/redis-server.js";
import { bindAll, type Listener } from "../../src/server/listeners.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) if (server.listening) server.close();
});

function listener(
  role: string,
  section: string,
  port: number,
  host = "127.0.0.1",
  origins: Record<string, string> = {},
): Listener {
  const server = createServer();
  servers.push(server);
  return {
    role,
    server,
    host,
    port,
    setting: { host: `${section}.host`, port: `${section}.port` },
    origin: (setting) => origins[setting] ?? "default",
  };
}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected bindAll to fail");
}

async function occupied(): Promise<number> {
  const blocker = createServer();
  servers.push(blocker);
  blocker.listen(0, "127.0.0.1");
  await once(blocker, "listening");
  return (blocker.address() as AddressInfo).port;
}

describe("bindAll", () => {
  it("binds every listener", async () => {
    const all = [listener("the public API", "listen", 0), listener("metrics", "metrics", 0)];
    await bindAll(all);
    expect(all.every((l) => l.server.listening)).toBe(true);
  });

  it("closes those already bound when one cannot bind, naming the port, the setting and where it came from", async () => {
    const port = await occupied();
    const first = listener("the public API", "listen", 0);
    const second = listener("metrics", "metrics", port, "127.0.0.1", { "metrics.port": "--metrics-port" });
    const third = listener("the admin API", "admin", 0);
    const failure = await failureOf(bindAll([first, second, third]));
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure.code).toBe("service_unavailable");
    expect(failure.message).toBe(
      `cannot listen for metrics on 127.0.0.1:${port}: the port is in use by another process (metrics.port ${port} from --metrics-port)`,
    );
    expect((failure.cause as NodeJS.ErrnoException).code).toBe("EADDRINUSE");
    expect(first.server.listening).toBe(false);
    expect(third.server.listening).toBe(false);
  });

  it("says when the setting is the default", async () => {
    const port = await occupied();
    const failure = await failureOf(bindAll([listener("the public API", "listen", port)]));
    expect(failure.message).toMatch(new RegExp(`\\(listen\\.port ${port}, the default\\)$`));
  });

  it("blames the host setting for an address that is not the machine's, in brackets for IPv6", async () => {
    const port = await freePort();
    const v4 = await failureOf(
      bindAll([listener("the admin API", "admin", port, "192.0.2.1", { "admin.host": "TUNNEL_ADMIN_HOST" })]),
    );
    expect(v4.message).toBe(
      `cannot listen for the admin API on 192.0.2.1:${port}: the address is not one of this machine's (admin.host 192.0.2.1 from TUNNEL_ADMIN_HOST)`,
    );
    const v6 = await failureOf(bindAll([listener("the admin API", "admin", port, "2001:db8::1")]));
    expect(v6.message).toMatch(new RegExp(`^cannot listen for the admin API on \\[2001:db8::1\\]:${port}: `));
  });

  it("blames the host setting for a name that does not resolve", async () => {
    const failure = await failureOf(
      bindAll([
        listener("the public API", "listen", 0, "no-such-host.invalid", {
          "listen.host": "config.yaml line 3",
        }),
      ]),
    );
    expect(failure.message).toBe(
      "cannot listen for the public API on no-such-host.invalid:0: the host name does not resolve (listen.host no-such-host.invalid from config.yaml line 3)",
    );
  });
});
