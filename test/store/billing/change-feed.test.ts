// The change feed on a real Redis: an account's channel subscribed on demand, its messages delivered, and a
// lost connection reported (so that the leases are dropped) and the channel subscribed again afterwards.

import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { ChangeFeed } from "../../../src/store/billing/change-feed.js";
import { RedisKeys } from "../../../src/store/redis-keys.js";
import { killClientNamed } from "../../helpers/redis-clients.js";
import { testPrefix } from "../../helpers/store.js";
import { waitUntil } from "../../helpers/wait.js";

let connection: Redis;
let publisher: Redis;
let feed: ChangeFeed;
let changes: string[];
let lost: number;
const keys = new RedisKeys(testPrefix());

beforeEach(async () => {
  changes = [];
  lost = 0;
  connection = new Redis(inject("redisUrl"), {
    lazyConnect: true,
    autoResubscribe: false,
    connectionName: `feed-test-${keys.prefix}`,
  });
  publisher = new Redis(inject("redisUrl"));
  feed = new ChangeFeed(connection, keys, {
    changed: (accountId, message) => changes.push(`${accountId}: ${message}`),
    lost: () => lost++,
    onError: () => {},
  });
  await feed.start();
});
afterEach(() => {
  feed.close();
  publisher.disconnect();
});

describe("the change feed", () => {
  it("subscribes to an account's channel when first asked, and delivers what is published there", async () => {
    expect(feed.ready("acme")).toBe(false);
    await waitUntil(() => feed.ready("acme"), "the subscription");
    await publisher.spublish(keys.changes("acme"), "key-1");
    await publisher.spublish(keys.changes("other"), "key-2");
    await waitUntil(() => changes.length > 0, "the message");
    expect(changes).toEqual(["acme: key-1"]);
  });

  it("does not ask again at every request when Redis refuses the subscription", async () => {
    const user = `feed-test-${Date.now().toString(36)}`;
    await publisher.call("ACL", "SETUSER", user, "on", "nopass", "~*", "&*", "+@all", "-ssubscribe");
    const refused: unknown[] = [];
    const restricted = new Redis(inject("redisUrl"), {
      lazyConnect: true,
      autoResubscribe: false,
      username: user,
      password: "unused",
    });
    let attempts = 0;
    const subscribe = restricted.ssubscribe.bind(restricted);
    restricted.ssubscribe = ((...channels: string[]) => {
      attempts++;
      return subscribe(...channels);
    }) as typeof restricted.ssubscribe;
    const limited = new ChangeFeed(restricted, keys, {
      changed: () => {},
      lost: () => {},
      onError: (error) => refused.push(error),
    });
    try {
      await limited.start();
      expect(limited.ready("acme")).toBe(false);
      await waitUntil(() => refused.length === 1, "the refusal");
      expect(String(refused[0])).toMatch(/NOPERM/);
      for (let i = 0; i < 10; i++) expect(limited.ready("acme")).toBe(false);
      expect(attempts).toBe(1);
    } finally {
      limited.close();
      await publisher.call("ACL", "DELUSER", user);
    }
  });

  it("reports no loss when it is closed on purpose", async () => {
    await waitUntil(() => feed.ready("acme"), "the subscription");
    feed.close();
    await waitUntil(() => connection.status === "end", "the connection closed");
    expect(lost).toBe(0);
  });

  it("reports a lost connection and is not ready until it has subscribed again", async () => {
    await waitUntil(() => feed.ready("acme"), "the subscription");
    await killClientNamed(publisher, `feed-test-${keys.prefix}`);
    await waitUntil(() => lost >= 1, "the loss reported");
    expect(feed.ready("acme")).toBe(false);
    await waitUntil(() => feed.ready("acme"), "the subscription again", 10_000);
    await publisher.spublish(keys.changes("acme"), "key-3");
    await waitUntil(() => changes.includes("acme: key-3"), "the message after the loss");
  });
});
