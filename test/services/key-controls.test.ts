// The key controls of the key service, on the suite's Redis: limits set, changed and removed (bad values
// refused with the field named, nothing written), rotation with and without a grace period (the old value
// refused with key_rotated once it ends, a second rotation ending the first grace), disable and enable —
// each audit-logged, each seen by the reserve script.

import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-key.js";
import type { KeyRecord } from "../../src/store/records.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

const HOUR = 3_600_000;

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(() => store.close());

/** What the reserve script answers a request presenting `value` for the key, now. */
async function presented(record: KeyRecord, value: string): Promise<string> {
  const now = store.clock.now();
  const ref = await store.keys.lookup(hashApiKey(value));
  if (ref === null) return "invalid_api_key";
  expect(ref).toEqual({ accountId: record.accountId, keyId: record.id });
  const reply = await store.billing.reserve(ref, {
    reservationId: randomUUID(),
    amount: 0,
    tokens: 0,
    keyHash: hashApiKey(value),
    now,
    periods: store.calendar.at(now),
    expiresAt: now + 60_000,
    model: { kind: "none" },
  });
  return reply.ok ? "ok" : reply.code;
}

/** The account's events, newest first: type, key and fields as the scripts wrote them. */
async function events() {
  return (await store.stores.events.recent("acme", 100)).map(({ event }) => ({
    type: event.type,
    keyId: event.keyId,
    fields: event.fields,
  }));
}

async function auditActions(): Promise<string[]> {
  return (await store.accountService.audit("acme", 100)).map((entry) => entry.action);
}

describe("limits", () => {
  it("are set at creation from numbers or the CLI's text, shown on the key, and audit-logged", async () => {
    const { record } = await store.keyService.create(
      { accountId: "acme", name: "k", rpm: 60, tpm: "100000", maxParallel: " 4 " },
      ACTOR,
    );
    expect(record.limits).toEqual({ rpm: 60, tpm: 100_000, maxParallel: 4 });
    expect((await store.keyService.show(record.id)).limits).toEqual(record.limits);
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry?.details).toMatchObject({ rpm: 60, tpm: 100_000, max_parallel: 4 });
  });

  it("are changed and removed one by one, the others kept", async () => {
    const { record } = await store.keyService.create(
      { accountId: "acme", name: "k", rpm: 60, tpm: 1000, maxParallel: 2 },
      ACTOR,
    );
    const changed = await store.keyService.update(record.id, { rpm: "120", maxParallel: null }, ACTOR);
    expect(changed.limits).toEqual({ rpm: 120, tpm: 1000, maxParallel: null });
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({ action: "key.update", details: { rpm: 120, max_parallel: null } });
    expect(entry?.details).not.toHaveProperty("tpm");
  });

  it("refuse 0, negative, fractional, non-numeric and too large values naming the limit, and write nothing", async () => {
    const bad: [string, unknown][] = [
      ["rpm", 0],
      ["rpm", -1],
      ["rpm", 1.5],
      ["rpm", "1.5"],
      ["rpm", "10abc"],
      ["rpm", ""],
      ["rpm", "0x10"],
      ["rpm", "1e3"],
      ["rpm", true],
      ["rpm", [10]],
      ["rpm", 1_000_001],
      ["tpm", "-5"],
      ["tpm", 1_000_000_001],
      ["max_parallel", 0],
      ["max_parallel", 100_001],
      ["max_parallel", Number.NaN],
    ];
    const field = { rpm: "rpm", tpm: "tpm", max_parallel: "maxParallel" } as const;
    const before = await store.allKeys();
    for (const [limit, value] of bad) {
      const input = { accountId: "acme", name: "k", [field[limit as keyof typeof field]]: value };
      await expect(store.keyService.create(input, ACTOR), `${limit} ${String(value)}`).rejects.toThrow(
        new RegExp(`^${limit} must be a whole number of .* from 1 to \\d+; got `),
      );
    }
    expect(await store.allKeys()).toEqual(before);

    const { record } = await store.keyService.create({ accountId: "acme", name: "k", rpm: 5 }, ACTOR);
    const written = await store.redis.hgetall(store.redisKeys.key("acme", record.id));
    for (const [limit, value] of bad) {
      await expect(
        store.keyService.update(record.id, { [field[limit as keyof typeof field]]: value }, ACTOR),
      ).rejects.toMatchObject({ code: "invalid_request" });
    }
    expect(await store.redis.hgetall(store.redisKeys.key("acme", record.id))).toEqual(written);
  });
});

describe("rotation", () => {
  it("without grace: the new value works at once, the old one is refused as rotated; id, budget and history stay", async () => {
    const created = await store.keyService.create(
      { accountId: "acme", name: "k", budget: "10", rpm: 5 },
      ACTOR,
    );
    const rotated = await store.keyService.rotate(created.record.id, undefined, ACTOR);
    expect(rotated.value).not.toBe(created.value);
    expect(rotated.record).toMatchObject({
      id: created.record.id,
      name: "k",
      budget: 10_000_000,
      limits: { rpm: 5, tpm: null, maxParallel: null },
      hint: rotated.value.slice(-4),
      previousUntil: store.clock.now(),
    });
    expect(await presented(rotated.record, rotated.value)).toBe("ok");
    expect(await presented(rotated.record, created.value)).toBe("key_rotated");
    const [entry] = await store.accountService.audit("acme", 1);
    expect(entry).toMatchObject({
      action: "key.rotate",
      key_id: created.record.id,
      details: { previous_hint: created.record.hint, hint: rotated.record.hint, grace_until: null },
    });
    // Without a grace period the event says so too (its webhook data shows grace_until: null).
    expect((await events())[0]).toMatchObject({ type: "key.rotated", fields: { grace_until: "" } });
  });

  it("with a grace period: the old value works until it ends, then is refused", async () => {
    const created = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const rotated = await store.keyService.rotate(created.record.id, "2h", ACTOR);
    expect(rotated.record.previousUntil).toBe(store.clock.now() + 2 * HOUR);
    expect(await presented(rotated.record, created.value)).toBe("ok");
    expect(await presented(rotated.record, rotated.value)).toBe("ok");
    store.clock.advance(2 * HOUR - 1);
    expect(await presented(rotated.record, created.value)).toBe("ok");
    store.clock.advance(1);
    expect(await presented(rotated.record, created.value)).toBe("key_rotated");
    expect(await presented(rotated.record, rotated.value)).toBe("ok");
    const [event] = await events();
    expect(event).toEqual({
      type: "key.rotated",
      keyId: created.record.id,
      fields: {
        name: "k",
        previous_hint: created.record.hint,
        hint: rotated.record.hint,
        grace_until: String(rotated.record.previousUntil),
      },
    });
  });

  it("again during a grace period ends the first grace at once; only the value just replaced gets one", async () => {
    const first = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const second = await store.keyService.rotate(first.record.id, "7d", ACTOR);
    const third = await store.keyService.rotate(first.record.id, "1h", ACTOR);
    expect(await presented(third.record, first.value)).toBe("key_rotated");
    expect(await presented(third.record, second.value)).toBe("ok");
    expect(await presented(third.record, third.value)).toBe("ok");
    store.clock.advance(HOUR);
    expect(await presented(third.record, second.value)).toBe("key_rotated");
    expect(await auditActions()).toEqual(["key.rotate", "key.rotate", "key.create", "account.create"]);
  });

  it("of a key created before values were recorded accepts any of its old values during the grace period", async () => {
    const created = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await store.redis.hdel(store.redisKeys.key("acme", created.record.id), "hash");
    expect(await presented(created.record, created.value)).toBe("ok");
    const rotated = await store.keyService.rotate(created.record.id, "1h", ACTOR);
    expect(await presented(rotated.record, created.value)).toBe("ok");
    store.clock.advance(HOUR);
    expect(await presented(rotated.record, created.value)).toBe("key_rotated");
    expect(await presented(rotated.record, rotated.value)).toBe("ok");
  });

  it("refuses a bad grace period or a revoked key, and writes nothing", async () => {
    const created = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const before = await store.allKeys();
    const record = await store.redis.hgetall(store.redisKeys.key("acme", created.record.id));
    for (const grace of ["8d", "7d1m", "-1h", "1s", "1H", "abc", "", 5, true]) {
      await expect(store.keyService.rotate(created.record.id, grace, ACTOR), String(grace)).rejects.toThrow(
        /^grace must be/,
      );
    }
    await store.keyService.revoke(created.record.id, ACTOR);
    const revoked = await store.allKeys();
    expect(revoked).toEqual(before);
    await expect(store.keyService.rotate(created.record.id, "1h", ACTOR)).rejects.toThrow(/is revoked/);
    expect(await store.allKeys()).toEqual(revoked);
    expect(await store.redis.hget(store.redisKeys.key("acme", created.record.id), "hash")).toBe(record.hash);
  });
});

describe("disable and enable", () => {
  it("refuse a disabled key with key_disabled, keep everything, and restore it; each change audit-logged once", async () => {
    const { record, value } = await store.keyService.create({ accountId: "acme", name: "k", rpm: 3 }, ACTOR);
    const disabled = await store.keyService.setDisabled(record.id, true, ACTOR);
    expect(disabled).toMatchObject({
      changed: true,
      record: { disabledAt: store.clock.now(), limits: { rpm: 3 } },
    });
    expect(await presented(record, value)).toBe("key_disabled");
    expect((await store.keyService.setDisabled(record.id, true, ACTOR)).changed).toBe(false);
    const enabled = await store.keyService.setDisabled(record.id, false, ACTOR);
    expect(enabled).toMatchObject({ changed: true, record: { disabledAt: null } });
    expect(await presented(record, value)).toBe("ok");
    expect((await store.keyService.setDisabled(record.id, false, ACTOR)).changed).toBe(false);
    expect(await auditActions()).toEqual(["key.enable", "key.disable", "key.create", "account.create"]);
    // One event per change, none for what changed nothing.
    expect((await events()).map((event) => [event.type, event.keyId, event.fields.name])).toEqual([
      ["key.enabled", record.id, "k"],
      ["key.disabled", record.id, "k"],
      ["key.created", record.id, "k"],
    ]);
  });

  it("refuse a revoked key", async () => {
    const { record } = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    await store.keyService.revoke(record.id, ACTOR);
    await expect(store.keyService.setDisabled(record.id, true, ACTOR)).rejects.toThrow(/is revoked/);
    await expect(store.keyService.setDisabled("key_00000000000000000000", true, ACTOR)).rejects.toMatchObject(
      {
        code: "key_not_found",
      },
    );
  });
});
