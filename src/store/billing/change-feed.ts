// The change feed: the replica's subscription to the change channels of the accounts it holds admission
// leases for (sharded pub/sub, SSUBSCRIBE; the scripts that change a key or an account publish on it, see
// lua/includes/publishChange.lua). A lease of an account is used only while its channel is subscribed on a
// connection that is up: when the connection drops, every lease is dropped (fail safe) and channels are
// subscribed again, one account at a time, as the accounts are used.
//
// Its own connection (with autoResubscribe off: a channel counts as subscribed only once this feed has
// subscribed it on the connection that is up): a subscribed connection can run nothing else. Needs Redis 7
// (sharded pub/sub). On a Cluster the connection is a Cluster with ioredis' sharded subscribers, one
// connection per master, each channel on its slot's master: the loss of any of them (ioredis reports
// `-node` and `-subscriber`) counts as the loss of all, and channels are subscribed again as the accounts
// are used. A channel that Redis itself unsubscribes when its slot moves to another master is not reported
// by ioredis: there the 2 s limit on a lease's facts (leases.ts) is the bound (docs/leases.md).

import { Cluster, type Redis } from "ioredis";
import type { RedisKeys } from "../redis-keys.js";

export interface ChangeFeedHooks {
  /** A change published on an account's channel: a key id, '*', or 'reclaim <keyId>'. */
  changed(accountId: string, message: string): void;
  /** The subscription was lost: nothing published meanwhile can be known. */
  lost(): void;
  onError(error: unknown): void;
}

/** How long an account whose subscription failed waits before the next attempt. */
export const SUBSCRIBE_RETRY_MS = 5000;

export class ChangeFeed {
  private readonly subscribed = new Set<string>();
  private readonly subscribing = new Set<string>();
  /** Accounts whose subscription Redis refused, and when to try again (ms since the epoch). */
  private readonly refusedUntil = new Map<string, number>();
  private up = false;
  private closed = false;
  /** Counts connection losses: a subscription confirmed for an earlier connection counts for nothing. */
  private epoch = 0;

  constructor(
    private readonly connection: Redis | Cluster,
    private readonly keys: RedisKeys,
    private readonly hooks: ChangeFeedHooks,
  ) {
    const channelPattern = new RegExp(`^${escapeRegExp(keys.prefix)}\\{a:(.+)\\}:changes$`);
    connection.on("smessage", (channel: string, message: string) => {
      const match = channelPattern.exec(channel);
      if (match) hooks.changed(match[1] as string, message);
    });
    connection.on("ready", () => {
      this.up = true;
    });
    // Any sign of the connection going away: whatever was published meanwhile is lost to this replica.
    for (const event of ["close", "end", "reconnecting"]) connection.on(event, () => this.down());
    if (connection instanceof Cluster) {
      // A master's subscriber ended or was replaced: its channels' messages meanwhile are lost. The Cluster
      // itself stays up, so the feed is up again at once, with nothing subscribed.
      for (const event of ["-node", "-subscriber"]) {
        connection.on(event, () => {
          this.down();
          this.up = connection.status === "ready" && !this.closed;
        });
      }
    }
    connection.on("error", () => {});
  }

  async start(): Promise<void> {
    if (this.connection.status === "wait") await this.connection.connect();
    this.up = this.connection.status === "ready";
  }

  /** Whether the account's changes reach this replica now; if not, starts subscribing to them. */
  ready(accountId: string): boolean {
    if (this.subscribed.has(accountId)) return this.up;
    const retryAt = this.refusedUntil.get(accountId);
    if (retryAt !== undefined && retryAt > Date.now()) return false;
    if (this.up && !this.closed && !this.subscribing.has(accountId)) {
      this.subscribing.add(accountId);
      const epoch = this.epoch;
      this.connection.ssubscribe(this.keys.changes(accountId)).then(
        () => {
          // A drop while subscribing cleared everything: this subscription was of the old connection.
          if (epoch !== this.epoch) return;
          this.subscribing.delete(accountId);
          this.subscribed.add(accountId);
        },
        (error: unknown) => {
          if (epoch === this.epoch) this.subscribing.delete(accountId);
          // Not asked again at every request: an ACL that refuses it will refuse it again.
          if (this.refusedUntil.size > 10_000) this.refusedUntil.clear();
          this.refusedUntil.set(accountId, Date.now() + SUBSCRIBE_RETRY_MS);
          this.hooks.onError(error);
        },
      );
    }
    return false;
  }

  close(): void {
    this.closed = true;
    this.up = false;
    this.connection.disconnect();
  }

  private down(): void {
    const wasUp = this.up || this.subscribed.size > 0;
    this.epoch++;
    this.up = false;
    this.subscribed.clear();
    this.subscribing.clear();
    // A feed closed on purpose has nobody left to tell.
    if (wasUp && !this.closed) this.hooks.lost();
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
