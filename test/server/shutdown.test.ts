// The drain of the public listener at shutdown: no new connections, idle keep-alive connections closed at
// once, requests in flight given the drain time, then the rest aborted (and given time to settle). Over
// real HTTP, with the request tracker the gateway uses.

import { Agent, request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayRequest } from "../../src/core/request.js";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import { drain } from "../../src/server/shutdown.js";
import { type Listening, listen } from "../helpers/http.js";
import { captureLogs } from "../helpers/logs.js";

/**
 * The drain time the tests give. "At once" is measured against it: a tenth of it, far more than closing
 * anything takes even on a loaded machine, and far less than waiting for the drain.
 */
const DRAIN_MS = 20_000;
const AT_ONCE_MS = DRAIN_MS / 10;

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("drain", () => {
  it("stops accepting connections and returns at once when nothing is running", async () => {
    server = await listen((_req, res) => res.end("ok"));
    const { logger, lines } = captureLogs();
    const started = performance.now();
    await drain(server.server, new RequestTracker(), DRAIN_MS, logger);
    expect(performance.now() - started).toBeLessThan(AT_ONCE_MS);
    expect(server.server.listening).toBe(false);
    await expect(fetch(server.url)).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } });
    expect(lines).toEqual([]);
  });

  it("closes an idle keep-alive connection at once", async () => {
    server = await listen((_req, res) => res.end("ok"));
    // Node would close the idle connection itself once keepAliveTimeout passes: not within this test.
    server.server.keepAliveTimeout = 10 * DRAIN_MS;
    const agent = new Agent({ keepAlive: true });
    const closed = new Promise<void>((resolve) =>
      server?.server.once("connection", (socket) => socket.once("close", () => resolve())),
    );
    await new Promise<void>((resolve, reject) =>
      httpRequest(server!.url, { agent }, (res) => res.resume().on("end", resolve))
        .on("error", reject)
        .end(),
    );
    // A request still in flight keeps the drain going for its drain time: the idle connection must not wait.
    const tracker = new RequestTracker();
    const inFlight = new GatewayRequest("req", "POST", "/v1/chat/completions", 0);
    tracker.begin(inFlight);
    const started = performance.now();
    const draining = drain(server.server, tracker, DRAIN_MS, captureLogs().logger);
    await closed;
    expect(performance.now() - started).toBeLessThan(AT_ONCE_MS);
    tracker.end(inFlight);
    await draining;
    agent.destroy();
  });

  it("waits for the requests in flight to finish, without aborting them", async () => {
    server = await listen(() => {});
    const tracker = new RequestTracker();
    const tracked = new GatewayRequest("req", "POST", "/v1/chat/completions", 0);
    tracker.begin(tracked);
    let aborted = false;
    tracked.exchange = {
      abortForShutdown: () => {
        aborted = true;
      },
    };
    const { logger, lines } = captureLogs();
    let drained = false;
    const draining = drain(server.server, tracker, 60_000, logger).then(() => {
      drained = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    tracker.end(tracked);
    await draining;
    expect(aborted).toBe(false);
    expect(lines).toEqual([]);
  });

  it("aborts what is still running when the drain time is up, says so, and returns once it has ended", async () => {
    server = await listen(() => {});
    const tracker = new RequestTracker();
    const ending: string[] = [];
    for (const name of ["a", "b"]) {
      const tracked = new GatewayRequest(name, "POST", "/v1/chat/completions", 0);
      tracker.begin(tracked);
      tracked.exchange = {
        abortForShutdown: () => {
          ending.push(name);
          // An aborted request settles for what it produced, then leaves the tracker.
          setImmediate(() => tracker.end(tracked));
        },
      };
    }
    const { logger, lines } = captureLogs();
    await drain(server.server, tracker, 20, logger);
    expect(ending).toEqual(["a", "b"]);
    expect(tracker.size).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        running: 2,
        msg: "drain time is up: aborting the requests still running",
      }),
    ]);
  });
});
