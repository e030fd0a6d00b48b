// A stub model server for tests: the demo upstream's behaviour by default, every request recorded
// (headers and body as the upstream saw them), and a per-test handler to script anything else —
// failures, slow streams, other usage shapes.

import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { answerDemoRequest, type DemoOptions, readRequestBody } from "../../src/demo/demo-upstream.js";
import { PROBE_USER_AGENT } from "../../src/proxy/upstream-probe.js";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Resolves true when the gateway dropped the connection before the response was complete. */
  aborted: Promise<boolean>;
}

/** Handles a request itself (return true), or leaves it to the demo behaviour (return false/undefined). */
export type StubHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
) => boolean | undefined | Promise<boolean | undefined>;

export interface StubUpstream {
  url: string;
  server: Server;
  /** The requests the gateway forwarded. */
  requests: RecordedRequest[];
  /** The gateway's start-up checks (GET /v1/models), kept apart from the requests it forwarded. */
  probes: RecordedRequest[];
  handle(handler: StubHandler | null): void;
  close(): Promise<void>;
}

export async function startStubUpstream(options: DemoOptions = {}): Promise<StubUpstream> {
  let handler: StubHandler | null = null;
  const requests: RecordedRequest[] = [];
  const probes: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readRequestBody(req);
    const aborted = new Promise<boolean>((resolve) => res.on("close", () => resolve(!res.writableFinished)));
    const recorded = req.headers["user-agent"] === PROBE_USER_AGENT ? probes : requests;
    recorded.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, aborted });
    try {
      if (handler && (await handler(req, res, body))) return;
      await answerDemoRequest(req, res, body, options);
    } catch {
      res.destroy();
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    requests,
    probes,
    handle(next) {
      handler = next;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
