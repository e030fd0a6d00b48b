// The queue wait driven alone: a real gate with this replica's places and a clock moved by hand, and a
// stand-in exchange that records what it is told. Forwarded at once while there is room; else it waits and is
// forwarded when a place comes free; taken out at once when it leaves; refused when the queue is full or it
// waited too long; told when a shutdown begins.

import { describe, expect, it } from "vitest";
import type { GatewayError } from "../../../src/core/errors.js";
import { GatewayRequest } from "../../../src/core/request.js";
import type { RequestSharing } from "../../../src/core/sharing.js";
import { type Queued, QueueWait } from "../../../src/proxy/relay/queue-wait.js";
import { UpstreamGate } from "../../../src/proxy/sharing/upstream-gate.js";
import { LocalSlots } from "../../../src/proxy/sharing/upstream-slots.js";
import { ManualTimers } from "../../helpers/timers.js";

class StandIn implements Queued {
  readonly request = new GatewayRequest("r", "POST", "/v1/chat/completions", 0);
  readonly told: string[] = [];

  constructor(accountId = "acme") {
    this.request.ref = { accountId, keyId: "k" };
  }

  forward(): void {
    this.told.push("forward");
  }

  refuse(error: GatewayError): void {
    this.told.push(`refuse ${error.code}`);
  }

  abortForShutdown(): void {
    this.told.push("shutdown");
  }
}

const SHARING: RequestSharing = { weight: 1, priority: null, maxWaitMs: 30_000 };

function setUp(places = 1, bounds = { maxRequests: 100, maxRequestsPerAccount: 50 }) {
  const timers = new ManualTimers();
  const gate = new UpstreamGate({
    slots: new LocalSlots(places),
    bounds,
    clock: timers.now,
    after: timers.after,
  });
  const enter = (sharing = SHARING) => {
    const exchange = new StandIn();
    const wait = new QueueWait(exchange, gate);
    wait.enter(sharing);
    return { exchange, wait };
  };
  return { gate, timers, enter };
}

describe("QueueWait", () => {
  it("forwards at once while the model server has room, and waits for a freed place otherwise", () => {
    const { gate, enter } = setUp(1);
    const first = enter();
    const second = enter();
    expect(first.exchange.told).toEqual(["forward"]);
    expect(second.exchange.told).toEqual([]);
    expect(second.wait.request).toBe(second.exchange.request);
    expect(gate.waiting).toBe(1);
    gate.release(first.exchange.request);
    expect(second.exchange.told).toEqual(["forward"]);
    expect(gate.waiting).toBe(0);
  });

  it("leaves the queue at once when told to (its client left), and only once", () => {
    const { gate, enter } = setUp(1);
    const first = enter();
    const second = enter();
    second.wait.leave();
    second.wait.leave();
    expect(gate.waiting).toBe(0);
    gate.release(first.exchange.request);
    expect(second.exchange.told).toEqual([]);
    // A request that never waited has nothing to leave.
    first.wait.leave();
    expect(gate.waiting).toBe(0);
  });

  it("passes the gate's refusals on: a full queue, and a wait longer than allowed", () => {
    const { timers, enter } = setUp(1, { maxRequests: 1, maxRequestsPerAccount: 1 });
    enter();
    const waiting = enter({ ...SHARING, maxWaitMs: 500 });
    const turnedAway = enter();
    expect(turnedAway.exchange.told).toEqual(["refuse server_busy"]);
    timers.advance(500);
    expect(waiting.exchange.told).toEqual(["refuse server_busy"]);
    // Refused, it no longer waits: leaving takes nothing out twice.
    waiting.wait.leave();
  });

  it("tells the exchange when a shutdown begins", () => {
    const { gate, enter } = setUp(1);
    enter();
    const waiting = enter();
    gate.drain();
    expect(waiting.exchange.told).toEqual(["shutdown"]);
  });
});
