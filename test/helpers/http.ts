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
