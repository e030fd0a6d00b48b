// An account's alert settings in Redis: its low-balance mark (a field of the account hash, read by the settle
// script's balance alerts) and its own webhook (URL, signing secret, event types). Both are changed by scripts
// that record the change in the audit log; the secret never leaves the webhook hash but to sign deliveries.

import type { Micros } from "../../core/money.js";
import { AUDIT_CAP } from "../audit/audit-store.js";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface AccountWebhook {
  url: string;
  /** The signing secret: only for signing, never shown again after it was set. */
  secret: string;
  /** Its last characters, to recognise it. */
  hint: string;
  /** Event types it receives; null for every type. */
  events: string[] | null;
  createdAt: number;
}

export class AlertSettingsStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Sets or replaces the account's webhook; false when the account does not exist. */
  async setWebhook(accountId: string, webhook: AccountWebhook, audit: string): Promise<boolean> {
    const [code] = await runScript<[string]>(
      this.redis,
      "setAccountWebhook",
      [this.keys.account(accountId), this.keys.webhook(accountId), this.keys.audit(accountId)],
      [
        webhook.url,
        webhook.secret,
        webhook.hint,
        webhook.events?.join(",") ?? "",
        webhook.createdAt,
        audit,
        AUDIT_CAP,
      ],
    );
    return code === "ok";
  }

  /** Removes the account's webhook: "removed", "none" (it had none) or "account_not_found". */
  async removeWebhook(accountId: string, audit: string): Promise<"removed" | "none" | "account_not_found"> {
    const [code, existed] = await runScript<[string, number?]>(
      this.redis,
      "setAccountWebhook",
      [this.keys.account(accountId), this.keys.webhook(accountId), this.keys.audit(accountId)],
      ["", "", "", "", 0, audit, AUDIT_CAP],
    );
    if (code !== "ok") return "account_not_found";
    return Number(existed) === 1 ? "removed" : "none";
  }

  async webhook(accountId: string): Promise<AccountWebhook | null> {
    const hash = await this.redis.hgetall(this.keys.webhook(accountId));
    if (!hash.url) return null;
    return {
      url: hash.url,
      secret: hash.secret ?? "",
      hint: hash.hint ?? "",
      events: hash.events ? hash.events.split(",") : null,
      createdAt: Number(hash.created_at ?? 0),
    };
  }

  /** Sets (or, with null, clears) the account's low-balance mark; false when the account does not exist. */
  async setLowBalance(accountId: string, mark: Micros | null, audit: string): Promise<boolean> {
    const [code] = await runScript<[string]>(
      this.redis,
      "setAccountAlerts",
      [this.keys.account(accountId), this.keys.audit(accountId)],
      [mark ?? "", audit, AUDIT_CAP],
    );
    return code === "ok";
  }
}
