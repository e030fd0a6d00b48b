// The request path (pipeline.ts) on the suite's Redis, with a bug planted after the reservation: whatever throws between
// the reservation and the exchange taking the request over, the reservation is released at once, the
// client gets 500, and nothing is left held.

import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SettlementQueue } from "../../src/billing/settlement-queue.js";
import { createPipeline, type ForwardingProxy } from "../../src/proxy/pipeline.js";
import { ACTOR } from "../helpers/actor.js";
import { testContext } from "../helpers/context.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

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
