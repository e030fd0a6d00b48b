// Fair sharing as the configuration builds it, on the suite's Redis: nothing without upstream.maxInFlight or a
// priority field; the keys' settings alone for a priority field; a gate over this replica's places, or over
// places shared through Redis, with a probe that reports it; a failure to reach Redis logged once per ten
// seconds, not once per request.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Config, configSchema } from "../../../src/config/schema.js";
import type { GatewayError } from "../../../src/core/errors.js";
import { GatewayRequest } from "../../../src/core/request.js";
import { createLogger } from "../../../src/observability/logger.js";
import { createFairSharing, type FairSharing } from "../../../src/proxy/sharing/fair-sharing.js";
import { SharingCache } from "../../../src/proxy/sharing/sharing-cache.js";
import type { Waiter } from "../../../src/proxy/sharing/upstream-gate.js";
import { SharingService } from "../../../src/services/sharing.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";
import { waitUntil } from "../../helpers/wait.js";

let store: TestStore;
let built: FairSharing | null;
let logs: Record<string, unknown>[];

beforeEach(async () => {
  store = await openStore();
  built = null;
  logs = [];
});
afterEach(() => {
  built?.gate?.close();
  vi.useRealTimers();
  store.close();
});

function build(upstream: Partial<Config["upstream"]>, from: TestStore = store): FairSharing {
  const config = configSchema.parse({ upstream: { url: "http://127.0.0.1:1", ...upstream } });
  const logger = createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) });
  built = createFairSharing(config, { stores: from.stores, now: from.clock.now, logger });
  return built;
}

/** A request of `accountId` at the gate, recording what the gate does with it. */
function waiter(accountId: string, id: string) {
  const request = new GatewayRequest(id, "POST", "/v1/chat/completions", 0);
  request.ref = { accountId, keyId: "key" };
  const told: string[] = [];
  const asked: Waiter = {
    request,
    forward: () => void told.push("forward"),
    refuse: (error: GatewayError) => void told.push(error.code),
    abortForShutdown: () => void told.push("shutdown"),
  };
  return { asked, told, request };
}

const SHARING = { weight: 1, priority: null, maxWaitMs: 30_000 };

describe("createFairSharing", () => {
  it("builds nothing without upstream.maxInFlight or a priority field", () => {
    expect(build({})).toEqual({ gate: null, sharing: null, probe: null });
  });

  it("reads the keys' settings, and gates nothing, with only a priority field", async () => {
    const { gate, sharing, probe } = build({ priorityField: "priority" });
    expect(gate).toBeNull();
    expect(probe).toBeNull();
    expect(sharing).toBeInstanceOf(SharingCache);
    await store.accountService.create({ id: "acme", balance: "1" }, ACTOR);
    const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await new SharingService(store.stores).setKey(key.record.id, { priority: 7 }, ACTOR);
    expect(await sharing?.get({ accountId: "acme", keyId: key.record.id })).toMatchObject({ priority: 7 });
  });

  it("gates this replica's places with upstream.maxInFlight, and its probe reports them per account", () => {
    const { gate, sharing, probe } = build({ maxInFlight: 1 });
    expect(sharing).toBeInstanceOf(SharingCache);
    expect(probe).toMatchObject({ limit: 1, shared: false });
    const first = waiter("acme", "r1");
    const second = waiter("acme", "r2");
    expect(gate?.enter(first.asked, SHARING)).toBe("forward");
    expect(gate?.enter(second.asked, SHARING)).not.toBe("forward");
    expect([probe?.inUse(), probe?.waiting()]).toEqual([1, 1]);
    expect(probe?.account("acme").waiting).toBe(1);
    expect(probe?.account("other")).toEqual({ waiting: 0, oldestWaitMs: 0 });
    // The first ends: the second takes its place.
    gate?.release(first.request);
    expect(second.told).toEqual(["forward"]);
    expect([probe?.inUse(), probe?.waiting()]).toEqual([1, 0]);
  });

  it("shares the places through Redis with upstream.sharedInFlight, where each replica's count is kept", async () => {
    const { gate, probe } = build({ maxInFlight: 2, sharedInFlight: true });
    expect(probe).toMatchObject({ limit: 2, shared: true });
    const first = waiter("acme", "r1");
    // No place held yet: the request waits while the replica asks Redis for one, then goes.
    expect(gate?.enter(first.asked, SHARING)).not.toBe("forward");
    await waitUntil(() => first.told.length > 0, "the place Redis gives");
    expect(first.told).toEqual(["forward"]);
    expect(probe?.inUse()).toBe(1);
    const counts = await store.redis.hgetall(store.redisKeys.upstreamSlots().held);
    expect(Object.values(counts).map((count) => Number(count.split(" ")[0]))).toEqual([1]);
  });

  it("logs a failure to read the keys' settings once per ten seconds, and gives the defaults meanwhile", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const gone = await openStore({ prefix: store.prefix });
    gone.close();
    const { sharing } = build({ maxInFlight: 4 }, gone);
    const read = (keyId: string) => sharing?.get({ accountId: "acme", keyId });
    expect(await read("k1")).toMatchObject({ weight: 1, priority: null });
    expect(await read("k2")).toMatchObject({ weight: 1, priority: null });
    const warned = () => logs.filter((line) => String(line.msg).startsWith("could not read keys'")).length;
    expect(warned()).toBe(1);
    vi.advanceTimersByTime(10_000);
    await read("k3");
    expect(warned()).toBe(2);
  });
});
