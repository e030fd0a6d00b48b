// A webhook receiver for the tests: a real HTTP server on a loopback port that records every request (headers
// and the raw body, as a receiver must verify it) and answers with the statuses a test scripts. It can go down
// (nothing listens: connections are refused) and come back on the same port.

import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  raw: string;
  body: any;
  eventId: string;
  signature: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Statuses to answer with, in order; 200 once they run out. */
  answers: number[];
  /** Holds every answer back until released (a receiver that hangs). */
  hang(): void;
  /** Stops listening: connections are refused until up() is called. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks/tunnel"): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const answers: number[] = [];
  let hanging = false;
  const make = (): Server =>
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          headers: req.headers,
          raw,
          body: JSON.parse(raw),
          eventId: String(req.headers["x-tunnel-event-id"]),
          signature: String(req.headers["x-tunnel-signature"]),
        });
        if (hanging) return;
        res.writeHead(answers.shift() ?? 200, { "content-type": "text/plain" });
        res.end("ok");
      });
    });
  let server = make();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  };
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answers,
    hang() {
      hanging = true;
    },
    down: stop,
    async up() {
      hanging = false;
      server = make();
      server.listen(port, "127.0.0.1");
      await once(server, "listening");
    },
    close: stop,
  };
}
