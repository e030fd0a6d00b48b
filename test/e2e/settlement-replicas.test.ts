// A gateway on a master with a replica (redis.settlementReplicas auto: one must acknowledge): while the replica
// does not answer (its process stopped), a request's settlement is written but not done — it stays queued and
// is sent again, and the caller's GET /v1/requests/{id} answers it as not yet settled, with what it will cost;
// once the replica has it, it is done, charged once, and answered as settled.

import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { waitForReplicas } from "../helpers/failover.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { chat } from "../helpers/leases.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let servers: RedisServer[] = [];
let upstream: StubUpstream | undefined;
let t: TestGateway | undefined;

afterEach(async () => {
  for (const server of servers) if (server.process.exitCode === null) server.process.kill("SIGCONT");
  await t?.close();
  await upstream?.close();
  for (const server of servers) await server.stop();
  servers = [];
  t = upstream = undefined;
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${(t as TestGateway).gateway.metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^tunnel_gateway_${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

describe("settlements on a master with a replica", () => {
  it("stay queued while no replica acknowledges them, answered as not yet settled, and are done once one does", async () => {
    const master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
    servers.push(master);
    const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(master.port)] });
    servers.push(replica);
    await waitForReplicas(master.port, [replica.port]);
    upstream = await startStubUpstream();
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      // Leases off: the request's own reservation, so that nothing but its settlement waits for the replica.
      config: { pricing: PRICING, redis: { url: master.url }, billing: { leases: false } },
    });
    const gateway = t;
    const key = await gateway.newKey({ balance: "10" });
    replica.process.kill("SIGSTOP");
    const res = await chat(gateway, key.value);
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get("x-request-id") as string;
    const line = gateway.logs.find((l) => l.msg === "request" && l.request_id === id);
    await waitUntil(async () => (await metric("settlements_unreplicated_total")) > 0, "a WAIT to time out");

    const pending = await gateway.fetch(`/v1/requests/${id}`, { key: key.value });
    expect(pending.status).toBe(200);
    expect(await json(pending)).toMatchObject({ id, status: 200, cost: line?.cost_rub, settled: false });

    replica.process.kill("SIGCONT");
    await waitUntil(
      async () =>
        (await json(await gateway.fetch(`/v1/requests/${id}`, { key: key.value }))).settled === true,
      "the replica to acknowledge the settlement",
      10_000,
    );
    const done = await json(await gateway.fetch(`/v1/requests/${id}`, { key: key.value }));
    expect(done).toMatchObject({ id, cost: line?.cost_rub, settled: true });
    // Sent more than once, charged once.
    const cost = Math.round((line?.cost_rub as number) * 1e6);
    expect((await gateway.store.accounts.require("acme")).balance).toBe(10_000_000 - cost);
    expect(
      (await gateway.store.stores.requestLog.all("acme", key.id)).map((entry) => entry.request_id),
    ).toEqual([id]);
    expect(await metric("settlements_replayed_total")).toBe(0);
  });

  it("are sent again at most until billing.lateSettlementSeconds, with one warning, one error and one line when the wait ends", async () => {
    const master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
    servers.push(master);
    const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(master.port)] });
    servers.push(replica);
    await waitForReplicas(master.port, [replica.port]);
    upstream = await startStubUpstream();
    t = await startTestGateway({
      upstreamUrl: upstream.url,
      config: {
        pricing: PRICING,
        redis: { url: master.url },
        billing: { leases: false, lateSettlementSeconds: 60 },
      },
    });
    const gateway = t;
    const key = await gateway.newKey({ balance: "10" });
    replica.process.kill("SIGSTOP");
    const res = await chat(gateway, key.value);
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get("x-request-id") as string;
    const line = gateway.logs.find((l) => l.msg === "request" && l.request_id === id);
    await waitUntil(async () => (await metric("settlements_unreplicated_total")) >= 3, "WAITs to time out");

    gateway.clock.advance(60_000);
    await waitUntil(
      async () => (await metric("settlements_given_up_total")) === 1,
      "the settlement given up",
    );
    const done = await json(await gateway.fetch(`/v1/requests/${id}`, { key: key.value }));
    expect(done).toMatchObject({ id, cost: line?.cost_rub, settled: true });
    const about = gateway.logs.filter((l) => /^settlements /.test(String(l.msg)));
    expect(about.map((l) => l.level)).toEqual([40, 50, 30]);
    expect(about[1]).toMatchObject({ accounts: ["acme"], request_ids: [id], settlements: 1 });
    // Written once, never again: charged once.
    const cost = Math.round((line?.cost_rub as number) * 1e6);
    expect((await gateway.store.accounts.require("acme")).balance).toBe(10_000_000 - cost);
    expect(await metric("settlements_pending")).toBe(0);
  });
});
