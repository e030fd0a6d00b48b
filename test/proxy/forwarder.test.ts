// The forwarder on the suite's Redis, with a bug planted after the reservation: whatever throws between
// the reservation and the exchange taking the request over, the reservation is released at once, the
// client gets 500, and nothing is left held.

import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Authenticator } from "../../src/auth/authenticator.js";
import { Pricing } from "../../src/billing/pricing.js";
import type { ReservationKeeper } from "../../src/billing/reservation-keeper.js";
import { SettlementQueue } from "../../src/billing/settlement-queue.js";
import { configSchema } from "../../src/config/schema.js";
import { createLogger } from "../../src/observability/logger.js";
import { EndpointTable } from "../../src/proxy/endpoints.js";
import { createForwarder, type ForwardingProxy } from "../../src/proxy/forwarder.js";
import { InFlight } from "../../src/proxy/in-flight.js";
import { ACTOR } from "../helpers/actor.js";
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

describe("the forwarder", () => {
  it("releases the reservation when something fails after it is made, and answers 500", async () => {
    store = await openStore();
    upstream = await startStubUpstream();
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
    const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const config = configSchema.parse({ upstream: { url: upstream.url } });
    const logs: Record<string, unknown>[] = [];
    const inFlight = new InFlight();
    const settlements = new SettlementQueue(store.billing);
    let reservedWhenItFailed = -1;
    forwarder = createForwarder({
      config,
      inFlight,
      now: store.clock.now,
      calendar: store.calendar,
      settlements,
      keeper: {
        track() {
          // A bug in the request path, with the reservation made.
          reservedWhenItFailed = 1;
          throw new Error("a planted bug");
        },
        untrack() {},
      } as unknown as ReservationKeeper,
      logger: createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) }),
      finished: () => {},
      authenticator: new Authenticator(store.keys),
      billing: store.billing,
      pricing: new Pricing(config.pricing),
      endpoints: new EndpointTable(),
      refused: () => {},
      expiredReservations: () => {},
    });
    server = createServer((req, res) => forwarder.forward(req, res, "req-1", performance.now(), false));
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
    await inFlight.idle();
    expect(await settlements.flush(5000)).toBe(0);
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect((await store.accounts.require("acme")).balance).toBe(100_000_000);
    expect(logs).toContainEqual(expect.objectContaining({ msg: "request failed", request_id: "req-1" }));
    // The request is in the key's recent requests, as failed and free.
    const [entry] = await store.context.requestLog.recent("acme", key.record.id, 1);
    expect(entry).toMatchObject({ request_id: "req-1", status: 500, outcome: "internal_error", cost: 0 });
    expect(upstream.requests).toHaveLength(0);
  });
});
