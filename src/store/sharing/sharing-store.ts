// How accounts and keys share a full model server (docs/fair-sharing.md): the account's weight, priority and
// longest wait, and a key's own priority and longest wait, kept in the account and key records. Written by
// their scripts (each change in the audit log); read for the request path in one round trip by the gateway's
// cache (proxy/sharing/sharing-cache.ts), never on every request.

import { GatewayError } from "../../core/errors.js";
import type { KeyRef } from "../../core/key-ref.js";
import type { SharingFields } from "../../core/sharing.js";
import { accountNotFound } from "../accounts/account-store.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import { type RedisObserver, timed } from "../connection/timing.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

/** Changes as the scripts take them: whole numbers as text, "" to remove a setting. */
export interface SharingChanges {
  weight?: string;
  priority?: string;
  max_wait_ms?: string;
}

export class SharingStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly observe?: RedisObserver,
  ) {}

  /** The key's and its account's settings, read together. */
  async read(ref: KeyRef): Promise<SharingFields> {
    const results = await timed(this.observe, "read_sharing", () =>
      this.redis
        .pipeline()
        .hmget(this.keys.account(ref.accountId), "weight", "priority", "max_wait_ms")
        .hmget(this.keys.key(ref.accountId, ref.keyId), "priority", "max_wait_ms")
        .exec(),
    );
    const [accountResult, keyResult] = results ?? [];
    if (accountResult?.[0]) throw accountResult[0];
    if (keyResult?.[0]) throw keyResult[0];
    const [weight, accountPriority, accountMaxWaitMs] = (accountResult?.[1] ?? []) as (string | null)[];
    const [keyPriority, keyMaxWaitMs] = (keyResult?.[1] ?? []) as (string | null)[];
    return {
      weight: whole(weight),
      accountPriority: whole(accountPriority),
      accountMaxWaitMs: whole(accountMaxWaitMs),
      keyPriority: whole(keyPriority),
      keyMaxWaitMs: whole(keyMaxWaitMs),
    };
  }

  async setAccount(accountId: string, changes: SharingChanges, audit: string): Promise<void> {
    const [code] = await runScript(
      this.redis,
      "setAccountSharing",
      [this.keys.account(accountId), this.keys.audit(accountId)],
      [JSON.stringify(changes), audit, AUDIT_CAP],
    );
    if (code === "account_not_found") throw accountNotFound(accountId);
  }

  async setKey(ref: KeyRef, changes: Omit<SharingChanges, "weight">, audit: string): Promise<void> {
    const [code] = await runScript(
      this.redis,
      "setKeySharing",
      [this.keys.key(ref.accountId, ref.keyId), this.keys.audit(ref.accountId)],
      [JSON.stringify(changes), audit, AUDIT_CAP],
    );
    if (code === "key_not_found") throw new GatewayError("key_not_found", `no key with id ${ref.keyId}`);
    if (code === "key_revoked")
      throw new GatewayError("invalid_request", `key ${ref.keyId} is revoked and cannot be changed`);
  }
}

function whole(value: string | null | undefined): number | null {
  return value === null || value === undefined || value === "" ? null : Number.parseInt(value, 10);
}
