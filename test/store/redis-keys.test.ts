// Every Redis key the gateway uses: under the configured prefix, and everything of one account in one hash
// tag, so that a script touching several of an account's keys runs on one Redis Cluster slot.

import { describe, expect, it } from "vitest";
import { RedisKeys } from "../../src/store/redis-keys.js";

/** The part of a key Redis Cluster hashes: the text between the first "{" and the next "}", if not empty. */
function hashTag(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

const tg = new RedisKeys("tg:");
const keys = tg;

function accountKeys(accountId: string, keys: RedisKeys = tg): string[] {
  return [
    keys.account(accountId),
    keys.accountKeys(accountId),
    keys.key(accountId, "key_a"),
    keys.reservations(accountId),
    keys.reservationRecords(accountId),
    keys.reserved(accountId),
    keys.usage(accountId, "key_a", "2026-11-21"),
    keys.requestLog(accountId, "key_a"),
    keys.audit(accountId),
  ];
}

describe("RedisKeys", () => {
  it("puts every key of one account in the hash tag of that account", () => {
    for (const key of accountKeys("acme")) {
      expect(key.startsWith("tg:")).toBe(true);
      expect(hashTag(key), key).toBe("a:acme");
    }
    expect(accountKeys("acme-2").every((key) => hashTag(key) === "a:acme-2")).toBe(true);
  });

  it("gives every key of an account a name of its own", () => {
    const names = accountKeys("acme");
    expect(new Set(names).size).toBe(names.length);
    // Per key and per day: two keys, or two days, never share a hash.
    expect(keys.key("acme", "key_a")).not.toBe(keys.key("acme", "key_b"));
    expect(keys.usage("acme", "key_a", "2026-11-21")).not.toBe(keys.usage("acme", "key_a", "2026-11-22"));
    expect(keys.requestLog("acme", "key_a")).not.toBe(keys.requestLog("acme", "key_b"));
  });

  it("keeps the lookups found without knowing the account outside any account's tag", () => {
    for (const key of [
      keys.keyHash("ab12"),
      keys.keyAccount("key_a"),
      keys.accountToken("cd34"),
      keys.accounts(),
    ]) {
      expect(key.startsWith("tg:")).toBe(true);
      expect(key).not.toContain("{");
    }
    expect(keys.keyHash("ab12")).toBe("tg:keyhash:ab12");
    expect(keys.keyAccount("key_a")).toBe("tg:keyid:key_a");
    expect(keys.accountToken("cd34")).toBe("tg:acctoken:cd34");
    expect(keys.accounts()).toBe("tg:accounts");
  });

  it("keeps two prefixes apart, so that gateways sharing a Redis never see each other's data", () => {
    const staging = new RedisKeys("staging:");
    const ours = new Set([...accountKeys("acme"), tg.keyHash("h"), tg.keyAccount("k"), tg.accounts()]);
    const theirs = [
      ...accountKeys("acme", staging),
      staging.keyHash("h"),
      staging.keyAccount("k"),
      staging.accounts(),
    ];
    for (const key of theirs) {
      expect(key.startsWith("staging:")).toBe(true);
      expect(ours.has(key)).toBe(false);
    }
  });
});
