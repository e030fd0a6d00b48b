// The one register of requests in flight: begun and ended once each, idle when none is left, all aborted
// at the end of a drain, and the reservations of those still running for the keeper to extend.

import { describe, expect, it } from "vitest";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import { settlesAtOnce } from "../helpers/at-once.js";

describe("RequestTracker", () => {
  it("counts the requests begun and not yet ended; ending one twice changes nothing", () => {
    const tracker = new RequestTracker();
    const a = tracker.begin();
    const b = tracker.begin();
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
    const a = tracker.begin();
    const b = tracker.begin();
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
    const a = tracker.begin();
    a.exchange = {
      abortForShutdown: () => {
        aborted.push("a");
        tracker.end(a);
      },
    };
    tracker.begin(); // not forwarded yet: nothing to abort
    const c = tracker.begin();
    c.exchange = { abortForShutdown: () => aborted.push("c") };
    tracker.abortAll();
    expect(aborted).toEqual(["a", "c"]);
    expect(tracker.size).toBe(2);
  });

  it("lists the reservations of running requests that hold one, and forgets a reservation when its request ends", () => {
    const tracker = new RequestTracker();
    const held = tracker.begin();
    Object.assign(held, { reservationId: "r1", accountId: "acme", reservedAt: 1000 });
    tracker.begin(); // no reservation yet
    const ending = tracker.begin();
    Object.assign(ending, { reservationId: "r2", accountId: "acme", reservedAt: 2000 });
    tracker.end(ending);
    expect([...tracker.reservations()]).toEqual([
      { reservationId: "r1", accountId: "acme", reservedAt: 1000 },
    ]);
    expect(ending.reservationId).toBeNull();
  });
});
