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
 * provider's registered redirect URL names the gateway's admin port).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}
