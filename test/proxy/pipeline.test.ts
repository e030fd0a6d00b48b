// The request path (pipeline.ts) on the suite's Redis, with a bug planted after the reservation: whatever throws between
// the reservation and the exchange taking the request over, the reservation is released at once, the
// client gets 500, and nothing is left held. And a client that leaves before its request is forwarded: reported
// once, as client_aborted (499), its reservation given back; reported by the parser alone when the parser
// refused its connection.

import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SettlementQueue } from "../../src/billing/settlement-queue.js";
import { createPipeline, type ForwardingProxy } from "../../src/proxy/pipeline.js";
import { answerClientErrors } from "../../src/server/client-errors.js";
import { ACTOR } from "../helpers/actor.js";
import { testContext } from "../helpers/context.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let store: TestStore;
let upstream: StubUpstream;
let server: Server;
let forwarder: ForwardingProxy;

afterEach(async () => {
  forwarder?.close();
  server?.closeAllConnections();
  server?.close();
  await upstream?.close();
  store?.close();
});

describe("the pipeline", () => {
  it("releases the reservation when something fails after it is made, and answers 500", async () => {
    store = await openStore();
    upstream = await startStubUpstream();
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const settlements = new SettlementQueue(store.billing);
    const { ctx, logs } = testContext(store, { upstream: { url: upstream.url } }, settlements);
    // A bug in the request path, with the reservation made: the exchange cannot take the request over.
    let reservedWhenItFailed = -1;
    const begin = ctx.tracker.begin.bind(ctx.tracker);
    ctx.tracker.begin = (request) => {
      begin(request);
      Object.defineProperty(request, "exchange", {
        set() {
          reservedWhenItFailed = 1;
          throw new Error("a planted bug");
        },
      });
    };
    forwarder = createPipeline(ctx);
    server = createServer((req, res) =>
      forwarder.forward(req, res, "req-1", performance.now(), "/v1/chat/completions", false),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");

    const res = await fetch(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${key.value}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      },
    );
    expect(res.status).toBe(500);
    expect(((await res.json()) as any).error.code).toBe("internal_error");
    expect(reservedWhenItFailed).toBe(1);
    await ctx.tracker.idle();
    expect(await settlements.flush(5000)).toBe(0);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect((await store.accounts.require("acme")).balance).toBe(100_000_000);
    expect(logs).toContainEqual(expect.objectContaining({ msg: "request failed", request_id: "req-1" }));
    // The request is in the key's recent requests, as failed and free.
    const [entry] = await store.stores.requestLog.recent("acme", key.record.id, 1);
    expect(entry).toMatchObject({ request_id: "req-1", status: 500, outcome: "internal_error", cost: 0 });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("a failure while refusing a request", () => {
  it("is logged with the request's id, and the gateway goes on answering", async () => {
    store = await openStore();
    upstream = await startStubUpstream();
    const { ctx, logs } = testContext(store, { upstream: { url: upstream.url } });
    let refusals = 0;
    ctx.observer.refused = () => {
      refusals++;
      if (refusals === 1) throw new Error("a planted bug in the observer");
    };
    forwarder = createPipeline(ctx);
    let n = 0;
    server = createServer((req, res) =>
      forwarder.forward(req, res, `req-${++n}`, performance.now(), "/v1/chat/completions", false),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const ask = () =>
      fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });

    expect((await ask()).status).toBe(401);
    await ctx.tracker.idle();
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: "reporting a refused request failed", request_id: "req-1" }),
    );
    expect((await ask()).status).toBe(401);
    expect(refusals).toBe(2);
  });
});

const BODY = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });

/** A gateway of the path alone, with Node's parser refusals answered as the gateway answers them. */
async function departures(plantOnAdmission: ((req: IncomingMessage) => void) | null = null) {
  store = await openStore();
  upstream = await startStubUpstream();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  const settlements = new SettlementQueue(store.billing);
  const recorded = testContext(store, { upstream: { url: upstream.url } }, settlements);
  const { ctx } = recorded;
  let current: IncomingMessage | null = null;
  let began = 0;
  const begin = ctx.tracker.begin.bind(ctx.tracker);
  ctx.tracker.begin = (request) => {
    begin(request);
    began++;
    if (plantOnAdmission === null) return;
    Object.defineProperty(request, "exchange", {
      set() {
        plantOnAdmission(current as IncomingMessage);
        throw new Error("a planted bug");
      },
    });
  };
  forwarder = createPipeline(ctx);
  let n = 0;
  server = createServer((req, res) => {
    current = req;
    forwarder.forward(req, res, `req-${++n}`, performance.now(), "/v1/chat/completions", false);
  });
  server.on("clientError", answerClientErrors(ctx.observer, ctx.now));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const head = (length: number) =>
    `POST /v1/chat/completions HTTP/1.1\r\nHost: g\r\nAuthorization: Bearer ${key.value}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  /** Opens a connection, writes `bytes`, and waits until the path has taken the request. */
  const send = async (bytes: string): Promise<Socket> => {
    const before = began;
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write(bytes);
    await waitUntil(() => began > before, "the request on the path");
    return socket;
  };
  return { ...recorded, settlements, key, head, send };
}

describe("a client that leaves before its request is forwarded", () => {
  it("is reported once, as client_aborted with 499, when it resets its connection while its body is read", async () => {
    const x = await departures();
    const socket = await x.send(x.head(BODY.length) + BODY.slice(0, 10));
    socket.resetAndDestroy();
    await x.ctx.tracker.idle();
    expect(x.refused).toHaveLength(0);
    expect(x.finished).toHaveLength(1);
    expect(x.finished[0]).toMatchObject({ requestId: "req-1", status: 499, outcome: "client_aborted" });
    expect(upstream.requests).toHaveLength(0);
  });

  it("gives its reservation back at once, recorded as client_aborted, when it left after admission", async () => {
    const x = await departures((req) => req.socket.destroy());
    const socket = await x.send(x.head(BODY.length) + BODY);
    await x.ctx.tracker.idle();
    socket.destroy();
    expect(await x.settlements.flush(5000)).toBe(0);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect((await store.accounts.require("acme")).balance).toBe(100_000_000);
    expect(x.refused).toHaveLength(0);
    expect(x.finished).toHaveLength(1);
    expect(x.finished[0]).toMatchObject({ requestId: "req-1", status: 499, outcome: "client_aborted" });
    const [entry] = await store.stores.requestLog.recent("acme", x.key.record.id, 1);
    expect(entry).toMatchObject({ request_id: "req-1", status: 499, outcome: "client_aborted", cost: 0 });
  });

  it("is reported by the parser alone when the parser refused its connection (a body cut short, bytes after it)", async () => {
    const x = await departures();
    // Half-closed while its body is read: the parser answers 400 and reports it.
    const halfClosed = await x.send(x.head(BODY.length) + BODY.slice(0, 10));
    halfClosed.end();
    await x.ctx.tracker.idle();
    // Bytes that are not HTTP after the body: the parser answers 400 and reports it.
    const lied = await x.send(`${x.head(BODY.length)}${BODY}NOT HTTP AT ALL\r\n\r\n`);
    await x.ctx.tracker.idle();
    halfClosed.destroy();
    lied.destroy();
    expect(x.refused.map((request) => [request.status, request.code])).toEqual([
      [400, "invalid_request"],
      [400, "invalid_request"],
    ]);
    expect(x.finished).toHaveLength(0);
  });
});
