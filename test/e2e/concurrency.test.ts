// No overspend under concurrency: 200 requests in parallel against a budget (or a balance) that covers
// only some of them, through one gateway and through two gateway processes sharing one Redis.

import { afterEach, describe, inject, it } from "vitest";
import { RealClock } from "../helpers/clock.js";
import { PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { balanceHolds, budgetHolds } from "../helpers/overspend.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;
let second: GatewayProcess | undefined;

afterEach(async () => {
  await second?.stop();
  second = undefined;
  await t?.close();
  await upstream?.close();
});

async function setup(replicas: number): Promise<string[]> {
  // A few milliseconds per token keep many requests in flight at once.
  upstream = await startStubUpstream({ tokenIntervalMs: 2 });
  // With a second process, both gateways must judge reservations' expiry by the same clock: the real one.
  const clock = replicas === 1 ? undefined : new RealClock();
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { pricing: PRICING },
    ...(clock && { clock }),
  });
  if (replicas === 1) return [t.url];
  second = await spawnGateway(
    {
      pricing: PRICING,
      upstream: { url: upstream.url },
      redis: { url: inject("redisUrl"), prefix: t.config.redis.prefix },
    },
    { TUNNEL_LOG_LEVEL: "info" },
  );
  return [t.url, second.url];
}

/**
 * Every request is settled once the in-process gateway says so and the second process has stopped: its
 * clean shutdown writes every pending settlement before it exits 0.
 */
async function settleAll(): Promise<void> {
  await t.gateway.settled();
  if (second && (await second.stop()) !== 0) throw new Error("the second gateway did not exit cleanly");
}

const logs = () => [...t.logs, ...(second?.logs ?? [])];

describe("a key's budget under 200 parallel requests", () => {
  for (const replicas of [1, 2]) {
    it(`is never overspent, through ${replicas} gateway process${replicas > 1 ? "es" : ""}`, async () => {
      const bases = await setup(replicas);
      await budgetHolds(t, bases, settleAll, logs);
    });
  }
});

describe("an account's balance under 200 parallel requests", () => {
  for (const replicas of [1, 2]) {
    it(`never goes below zero and stays exact, through ${replicas} gateway process${replicas > 1 ? "es" : ""}`, async () => {
      const bases = await setup(replicas);
      await balanceHolds(t, bases, settleAll, logs);
    });
  }
});
