// A real HTTP listener on a free loopback port for a handler under test, closed by the test file's
// afterAll/afterEach through `close`.

import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    async close() {
      server.closeAllConnections();
      server.close();
      if (server.listening) await once(server, "close");
    },
  };
}

/** A response body as JSON, loosely typed for assertions. */
export async function json(res: Response): Promise<any> {
  return res.json();
}

/**
 * A loopback port free a moment ago, for a listener whose URL must be known before it starts (an identity
 * provider's registered redirect URL names the gateway's admin port). Chosen below Linux's ephemeral range
 * (ip_local_port_range, 32768–60999 by default): a port from that range, as listen(0) gives, can be taken in
 * between as the local end of any outgoing connection the suite's parallel files open (Redis clients, fetch),
 * which made a test fail now and then with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error("no free loopback port between 20000 and 32000 in 50 tries");
}

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) {
    server.close();
    await once(server, "close");
  }
  return bound;
}
