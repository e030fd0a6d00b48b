// What the start-up and failover checks say about replication: the warnings for each kind of master, and the
// facts as a real master with a replica reports them (INFO replication, CONFIG GET min-replicas-to-write).

import { afterEach, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../../src/demo/redis-server.js";
import {
  closeRedis,
  connectRedis,
  createRedis,
  type RedisClient,
} from "../../../src/store/connection/redis.js";
import { addressOf } from "../../../src/store/connection/redis-checks.js";
import { judgeReplication, readReplicationFacts } from "../../../src/store/connection/replication-checks.js";
import { waitForReplicas } from "../../helpers/failover.js";

const SAFE = { address: "r:6379", connectedReplicas: 1, minReplicasToWrite: 1 };

describe("judgeReplication", () => {
  it("says nothing of a master with a replica that stops taking writes when cut off from it", () => {
    expect(judgeReplication(SAFE, { failover: true, settlementReplicas: "auto" })).toEqual([]);
    expect(judgeReplication(SAFE, { failover: true, settlementReplicas: 1 })).toEqual([]);
  });

  it("says nothing of one server without replicas, where no failover can happen", () => {
    const alone = { ...SAFE, connectedReplicas: 0, minReplicasToWrite: 0 };
    expect(judgeReplication(alone, { failover: false, settlementReplicas: "auto" })).toEqual([]);
  });

  it("warns of a Sentinel or Cluster master without a replica: nothing to promote, nothing to acknowledge", () => {
    const alone = { ...SAFE, connectedReplicas: 0 };
    expect(judgeReplication(alone, { failover: true, settlementReplicas: "auto" })).toEqual([
      "Redis at r:6379 has no replica connected: if it fails, nothing can take its place, and no replica can acknowledge its settlements; they count as done once written there",
    ]);
  });

  it("warns when more replicas are asked to acknowledge settlements than the master has", () => {
    expect(judgeReplication(SAFE, { failover: true, settlementReplicas: 2 })).toEqual([
      "redis.settlementReplicas asks 2 replica(s) to acknowledge each settlement, but Redis at r:6379 has 1 connected: its settlements stay queued and are sent again until enough acknowledge them (tunnel_gateway_settlements_pending)",
    ]);
  });

  it("warns when settlements do not wait for the replicas a master has", () => {
    expect(judgeReplication(SAFE, { failover: true, settlementReplicas: 0 })).toEqual([
      expect.stringMatching(
        /^settlements do not wait for a replica \(redis.settlementReplicas: 0\): a failover of Redis at r:6379 loses/,
      ),
    ]);
  });

  it("recommends min-replicas-to-write and min-replicas-max-lag when it is 0, or cannot be read", () => {
    const [unset] = judgeReplication(
      { ...SAFE, minReplicasToWrite: 0 },
      { failover: true, settlementReplicas: "auto" },
    );
    expect(unset).toMatch(
      /^Redis at r:6379 has min-replicas-to-write 0: cut off from its replicas it keeps taking writes/,
    );
    expect(unset).toContain("set min-replicas-to-write 1 and min-replicas-max-lag 10");
    const [unknown] = judgeReplication(
      { ...SAFE, minReplicasToWrite: null },
      { failover: true, settlementReplicas: "auto" },
    );
    expect(unknown).toMatch(/cannot be told \(CONFIG GET is not allowed\): set min-replicas-to-write 1/);
  });
});

describe("readReplicationFacts", () => {
  let servers: RedisServer[] = [];
  let client: RedisClient | undefined;
  afterEach(async () => {
    if (client) closeRedis(client);
    for (const server of servers) await server.stop();
    servers = [];
  });

  it("reads a master's connected replicas and its min-replicas-to-write", async () => {
    const master = await startRedisServer({ args: ["--repl-diskless-sync-delay", "0"] });
    servers.push(master);
    const replica = await startRedisServer({ args: ["--replicaof", "127.0.0.1", String(master.port)] });
    servers.push(replica);
    await waitForReplicas(master.port, [replica.port]);
    client = createRedis({ url: master.url }, "cli");
    await connectRedis(client, { url: master.url });
    expect(await readReplicationFacts(client, addressOf)).toEqual([
      { address: `127.0.0.1:${master.port}`, connectedReplicas: 1, minReplicasToWrite: 0 },
    ]);
    await (client as import("ioredis").Redis).config("SET", "min-replicas-to-write", "1");
    expect(await readReplicationFacts(client, addressOf)).toMatchObject([{ minReplicasToWrite: 1 }]);
  });
});
