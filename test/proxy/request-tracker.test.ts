// The one register of requests in flight: begun and ended once each, idle when none is left, all aborted
// at the end of a drain, and the reservations of those still running for the keeper to extend.

import { describe, expect, it } from "vitest";
import { GatewayRequest } from "../../src/core/request.js";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import { settlesAtOnce } from "../helpers/at-once.js";

/** A request begun on the tracker, as the forwarder begins one. */
function begun(tracker: RequestTracker): GatewayRequest {
  const request = new GatewayRequest("req", "POST", "/v1/chat/completions", 0);
  tracker.begin(request);
  return request;
}

/** A running exchange of a request holding a reservation. */
function running(request: GatewayRequest, reservationId: string, reservedAt: number): void {
  Object.assign(request, {
    reservationId,
    ref: { accountId: "acme", keyId: "key_a" },
    reservedAt,
    exchange: { abortForShutdown() {} },
  });
}

describe("RequestTracker", () => {
  it("counts the requests begun and not yet ended; ending one twice changes nothing", () => {
    const tracker = new RequestTracker();
    const a = begun(tracker);
    const b = begun(tracker);
    expect(tracker.size).toBe(2);
    tracker.end(a);
    tracker.end(a);
    expect(tracker.size).toBe(1);
    tracker.end(b);
    expect(tracker.size).toBe(0);
  });

  it("is idle at once with nothing in flight, and otherwise once the last request has ended", async () => {
    const tracker = new RequestTracker();
    expect(await settlesAtOnce(tracker.idle())).toBe(true);
    const a = begun(tracker);
    const b = begun(tracker);
    let idle = 0;
    const waiting = [tracker.idle(), tracker.idle()].map((p) => p.then(() => idle++));
    tracker.end(a);
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(0);
    tracker.end(b);
    await Promise.all(waiting);
    expect(idle).toBe(2);
  });

  it("aborts every request that can be aborted, even those that end while being aborted", () => {
    const tracker = new RequestTracker();
    const aborted: string[] = [];
    const a = begun(tracker);
    a.exchange = {
      abortForShutdown: () => {
        aborted.push("a");
        tracker.end(a);
      },
    };
    begun(tracker); // not forwarded yet: nothing to abort
    const c = begun(tracker);
    c.exchange = { abortForShutdown: () => aborted.push("c") };
    tracker.abortAll();
    expect(aborted).toEqual(["a", "c"]);
    expect(tracker.size).toBe(2);
  });

  it("lists the reservations of running requests that hold one, and forgets a reservation when its request ends", () => {
    const tracker = new RequestTracker();
    const held = begun(tracker);
    running(held, "r1", 1000);
    begun(tracker); // no reservation yet
    const ending = begun(tracker);
    running(ending, "r2", 2000);
    tracker.end(ending);
    expect([...tracker.reservations()]).toEqual([
      { reservationId: "r1", accountId: "acme", reservedAt: 1000 },
    ]);
  });
});
