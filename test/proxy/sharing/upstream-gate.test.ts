// The gate to a model server with a limit, on its own: real request objects, stand-in exchanges that record
// what the gate asks of them, this replica's places, and a clock and timers moved by hand. Who is forwarded
// when, the bounds and their Retry-After, a request taken out at once when it leaves, the shutdown, and the
// memory 10 000 waiting requests take.

import { describe, expect, it } from "vitest";
import type { GatewayError } from "../../../src/core/errors.js";
import { GatewayRequest } from "../../../src/core/request.js";
import type { RequestSharing } from "../../../src/core/sharing.js";
import {
  type Entered,
  UpstreamGate,
  type Wait,
  type Waiter,
} from "../../../src/proxy/sharing/upstream-gate.js";
import { LocalSlots } from "../../../src/proxy/sharing/upstream-slots.js";
import { ManualTimers } from "../../helpers/timers.js";

class TestWaiter implements Waiter {
  readonly request: GatewayRequest;
  forwarded = false;
  refusal: GatewayError | null = null;
  aborted = false;
  entered: Entered | null = null;

  constructor(
    accountId: string,
    keyId: string,
    private readonly log: string[],
    private readonly gate: UpstreamGate,
  ) {
    this.request = new GatewayRequest(`${accountId}/${keyId}`, "POST", "/v1/chat/completions", 0);
    this.request.ref = { accountId, keyId };
  }

  forward(): void {
    this.forwarded = true;
    this.log.push(this.request.accountId as string);
  }

  refuse(error: GatewayError): void {
    this.refusal = error;
  }

  abortForShutdown(): void {
    this.aborted = true;
    if (this.entered !== null && typeof this.entered === "object") this.gate.leave(this.entered);
  }
}

const SHARING: RequestSharing = { weight: 1, priority: null, maxWaitMs: 30_000 };

function setUp(limit = 2, bounds = { maxRequests: 100, maxRequestsPerAccount: 50 }) {
  const timers = new ManualTimers();
  timers.ms = 1000;
  const gate = new UpstreamGate({
    slots: new LocalSlots(limit),
    bounds,
    clock: timers.now,
    after: timers.after,
  });
  const log: string[] = [];
  const enter = (accountId: string, keyId = "k", sharing: RequestSharing = SHARING) => {
    const waiter = new TestWaiter(accountId, keyId, log, gate);
    waiter.entered = gate.enter(waiter, sharing);
    return waiter;
  };
  /** The request ends: its place goes back. */
  const end = (waiter: TestWaiter) => gate.release(waiter.request);
  return { gate, timers, log, enter, end };
}

describe("UpstreamGate", () => {
  it("forwards at once while the server has room, and makes the rest wait, noting when each asked", () => {
    const { gate, enter, timers } = setUp(2);
    const [a, b] = [enter("acme"), enter("acme")];
    timers.advance(10);
    const c = enter("acme");
    expect([a.entered, b.entered]).toEqual(["forward", "forward"]);
    expect(typeof c.entered).toBe("object");
    expect([a.request.holdsSlot, c.request.holdsSlot]).toEqual([true, false]);
    expect(a.request.queuedAt).toBe(1000);
    expect(a.request.queueMs).toBe(0);
    expect(c.request.queuedAt).toBe(1010);
    expect(gate.waiting).toBe(1);
    expect(gate.inUse).toBe(2);
  });

  it("gives each freed place to the next request in the fair order, not in order of arrival", () => {
    const { enter, end, log, timers } = setUp(1);
    const first = enter("noisy");
    log.length = 0;
    const waiting = [...Array.from({ length: 5 }, () => enter("noisy")), enter("quiet"), enter("quiet")];
    let running = first;
    for (let i = 0; i < 4; i++) {
      timers.advance(100);
      end(running);
      running = waiting.find((waiter) => waiter.forwarded && waiter.request.holdsSlot) as TestWaiter;
    }
    expect(log).toEqual(["noisy", "quiet", "noisy", "quiet"]);
    // The second noisy request waited two service times; the first quiet one only one.
    const quiet = waiting[5] as TestWaiter;
    expect(quiet.request.queueMs).toBe(200);
    expect(quiet.request.holdsSlot).toBe(false);
  });

  it("refuses with server_busy when the queue holds maxRequests, or the account maxRequestsPerAccount", () => {
    const { enter, gate } = setUp(1, { maxRequests: 3, maxRequestsPerAccount: 2 });
    enter("a");
    enter("a");
    enter("a");
    const third = enter("a");
    expect(third.entered).toBe("refused");
    expect(third.refusal?.code).toBe("server_busy");
    expect(third.refusal?.status).toBe(429);
    expect(third.refusal?.message).toContain("queue.maxRequestsPerAccount");
    enter("b");
    const full = enter("c");
    expect(full.refusal?.message).toContain(
      "3 requests already wait for it on this replica (queue.maxRequests)",
    );
    expect(gate.waiting).toBe(3);
  });

  it("says in Retry-After when the account's waiting requests will have been served at the measured rate", () => {
    const { enter, end, timers } = setUp(1, { maxRequests: 100, maxRequestsPerAccount: 2 });
    // One place, one request every 500 ms over five seconds: two requests a second leave for the server.
    let running = enter("a");
    for (let i = 0; i < 10; i++) {
      const next = enter("a");
      timers.advance(500);
      end(running);
      running = next;
    }
    enter("a");
    enter("a");
    const refused = enter("a");
    // Two of its own wait, and it would be the third: 3 / (2 per second) = 1.5 s.
    expect(refused.refusal?.retryAfterMs).toBe(1500);
    // Another account, alone in the queue beside it, gets half the place: its one request in 1 s.
    const other = setUp(1, { maxRequests: 1, maxRequestsPerAccount: 5 });
    let busy = other.enter("a");
    for (let i = 0; i < 10; i++) {
      const next = other.enter("a");
      other.timers.advance(500);
      other.end(busy);
      busy = next;
    }
    other.enter("a");
    expect(other.enter("b").refusal?.retryAfterMs).toBe(1000);
  });

  it("refuses a request whose wait runs out with server_busy, and takes it out of the queue", () => {
    const { enter, timers, gate, end } = setUp(1);
    const running = enter("a");
    const short = enter("a", "k", { ...SHARING, maxWaitMs: 300 });
    const long = enter("a", "k", { ...SHARING, maxWaitMs: 10_000 });
    timers.advance(299);
    expect(short.refusal).toBeNull();
    timers.advance(1);
    expect(short.refusal?.code).toBe("server_busy");
    expect(short.refusal?.message).toContain("waited 300 ms");
    expect(short.request.queueMs).toBe(300);
    expect(gate.waiting).toBe(1);
    end(running);
    expect(short.forwarded).toBe(false);
    expect(long.forwarded).toBe(true);
    expect(timers.size).toBe(0);
  });

  it("takes a request that leaves out at once, once, and gives its turn to the next", () => {
    const { enter, gate, end } = setUp(1);
    const running = enter("a");
    const gone = enter("a");
    const next = enter("b");
    gate.leave(gone.entered as Wait);
    gate.leave(gone.entered as Wait);
    expect(gate.waiting).toBe(1);
    end(running);
    expect(gone.forwarded).toBe(false);
    expect(next.forwarded).toBe(true);
    // A place is given back once, however often its request is said to end.
    end(running);
    expect(gate.inUse).toBe(1);
  });

  it("answers every waiting request at the start of a shutdown, and leaves the running ones be", () => {
    const { enter, gate } = setUp(1);
    const running = enter("a");
    const waiting = [enter("a"), enter("b"), enter("c")];
    gate.drain();
    expect(waiting.map((waiter) => waiter.aborted)).toEqual([true, true, true]);
    expect(running.aborted).toBe(false);
    expect(gate.waiting).toBe(0);
  });

  it("goes on giving turns when one exchange fails to forward", () => {
    const { enter, end } = setUp(1);
    const running = enter("a");
    const broken = enter("a");
    broken.forward = () => {
      throw new Error("a bug");
    };
    enter("b");
    end(running);
    expect(broken.refusal?.code).toBe("internal_error");
    expect(broken.request.holdsSlot).toBe(true);
    end(broken);
    expect(broken.request.holdsSlot).toBe(false);
  });

  it("holds 10 000 waiting requests in little memory, refuses the next, and keeps nothing once they are gone", () => {
    const count = 10_000;
    const { enter, gate, end, timers } = setUp(1, { maxRequests: count, maxRequestsPerAccount: count });
    const running = enter("first");
    const waiters: TestWaiter[] = [];
    for (let i = 0; i < count; i++)
      waiters.push(new TestWaiter(`account-${i % 500}`, `key-${i % 7}`, [], gate));
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (const waiter of waiters) waiter.entered = gate.enter(waiter, SHARING);
    const after = process.memoryUsage().heapUsed;
    expect(gate.waiting).toBe(count);
    // The queue's own share of a waiting request (its entry, its key's line, its timer) stays small.
    expect((after - before) / count).toBeLessThan(2048);
    expect(enter("late").refusal?.message).toContain("queue.maxRequests");
    for (const waiter of waiters.slice(0, count / 2)) gate.leave(waiter.entered as Wait);
    timers.advance(SHARING.maxWaitMs);
    expect(waiters.filter((waiter) => waiter.refusal !== null)).toHaveLength(count / 2);
    end(running);
    expect(gate.waiting).toBe(0);
    expect(timers.size).toBe(0);
    expect([...gate.waitingAccounts()]).toEqual([]);
    expect(gate.accountState("account-1")).toEqual({ waiting: 0, oldestWaitMs: 0 });
  });

  it("tells an account's queueing: how many wait and how long the oldest has", () => {
    const { enter, gate, timers } = setUp(1);
    enter("a");
    enter("a");
    timers.advance(250);
    enter("b");
    enter("a");
    timers.advance(50);
    expect(gate.accountState("a")).toEqual({ waiting: 2, oldestWaitMs: 300 });
    expect(gate.accountState("b")).toEqual({ waiting: 1, oldestWaitMs: 50 });
  });
});
