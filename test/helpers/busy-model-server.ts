// A model server with a batch of its own: it runs at most `capacity` requests at once, each for `serviceMs`,
// and queues the rest first come, first served (vLLM's waiting queue, llama.cpp's slots), then answers as the
// demo model server does (usage included, so every charge is known). It records when each request began to run
// (and when it reached it) and for whom — the tenant a test writes into the body's `user` field — so that
// tests can read shares and waits in the order the server ran them.

import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { answerDemoRequest } from "../../src/demo/demo-upstream.js";
import { type StubUpstream, startStubUpstream } from "./upstream.js";

export interface Started {
  tenant: string;
  /** performance.now() when it reached the server, and when it began to run. */
  arrivedAt: number;
  at: number;
}

export interface BusyModelServer {
  url: string;
  stub: StubUpstream;
  /** Every request that began to run, in that order. */
  started: Started[];
  /** The most requests it ever ran at once. */
  readonly mostRunning: number;
  readonly running: number;
  close(): Promise<void>;
}

export async function startBusyModelServer(options: {
  capacity: number;
  serviceMs: number;
}): Promise<BusyModelServer> {
  const stub = await startStubUpstream();
  const started: Started[] = [];
  const waiting: (() => void)[] = [];
  let running = 0;
  let mostRunning = 0;
  // A request counts as running from the moment it is let in, before its promise's continuation runs.
  const next = () => {
    while (running < options.capacity && waiting.length > 0) {
      running++;
      mostRunning = Math.max(mostRunning, running);
      (waiting.shift() as () => void)();
    }
  };
  stub.handle(async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (req.method !== "POST") return false;
    const arrivedAt = performance.now();
    const tenant = String((JSON.parse(body.toString("utf8")) as { user?: unknown }).user ?? "");
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      next();
    });
    started.push({ tenant, arrivedAt, at: performance.now() });
    try {
      await new Promise((resolve) => setTimeout(resolve, options.serviceMs));
      if (!res.destroyed) await answerDemoRequest(req, res, body);
    } finally {
      running--;
      next();
    }
    return true;
  });
  return {
    url: stub.url,
    stub,
    started,
    get mostRunning() {
      return mostRunning;
    },
    get running() {
      return running;
    },
    close: () => stub.close(),
  };
}
