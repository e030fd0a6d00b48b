// The gateway behind Redis Sentinel: it asks the sentinel for the master's address and works from there.

import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedisServer } from "../../src/demo/redis-server.js";
import { json, startTestGateway } from "../helpers/gateway.js";
import { startSentinel } from "../helpers/redis-sentinel.js";
import { temporaryDirectories } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

let master: RedisServer;
let sentinel: ChildProcess;
let sentinelPort: number;
/** The sentinels' directories (a sentinel rewrites its configuration file), removed after the tests. */
const temporaryDirectory = temporaryDirectories("tunnel-sentinel-");

beforeAll(async () => {
  master = await startRedisServer({ args: ["--requirepass", "s3cret-master"] });
  ({ process: sentinel, port: sentinelPort } = await startSentinel(master.port, temporaryDirectory, {
    masterPassword: "s3cret-master",
  }));
}, 30_000);

afterAll(async () => {
  if (sentinel && sentinel.exitCode === null) {
    sentinel.kill("SIGTERM");
    await once(sentinel, "exit");
  }
  await master?.stop();
});

describe("behind Redis Sentinel", () => {
  it("finds the master through the sentinel and serves keys, authenticating with the master's password", async () => {
    let t: Awaited<ReturnType<typeof startTestGateway>> | undefined;
    try {
      t = await startTestGateway({
        config: {
          redis: {
            sentinel: { sentinels: [`127.0.0.1:${sentinelPort}`], name: "mymaster" },
            password: "s3cret-master",
          },
        },
      });
      const gateway = t;
      await waitUntil(async () => (await gateway.fetch("/readyz")).status === 200, "the gateway to be ready");
      const key = await gateway.newKey({ budget: "5" });
      const res = await gateway.fetch("/v1/key", { key: key.value });
      expect(res.status).toBe(200);
      expect((await json(res)).budgets[0].amount).toBe(5);
      // The start-up checks ran on the master the sentinel named, and name it by its address.
      const messages = t.logs.map((line) => line.msg as string);
      expect(messages).toContain("Redis checked: version, persistence and eviction policy are fit");
      expect(messages).toContainEqual(
        expect.stringMatching(
          new RegExp(`^Redis at 127\\.0\\.0\\.1:${master.port} has append-only persistence off`),
        ),
      );
    } finally {
      await t?.close();
    }
  });
});
