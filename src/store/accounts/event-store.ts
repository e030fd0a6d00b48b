// Alert events in Redis: each account's event stream (written by the scripts whose changes cause the events,
// through the emitEvent fragment), its due-events set for time-based events, and what the delivery workers
// need — claiming events under a lease, recording their delivery, finding the accounts with work to do. One
// typed function per script or read; the delivery policy itself is in src/alerts/.

import { createHash } from "node:crypto";
import type { RedisClient } from "../connection/redis.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

/** The consumer group every delivery worker reads the event streams as. */
export const DELIVERY_GROUP = "delivery";

export interface EventSettings {
  /** How long events, and their delivery states, are kept (ms). */
  keepMs: number;
  /** Budget thresholds, in percent, of keys that have none of their own. */
  thresholds: readonly number[];
}

/** What a process that does not configure alerts (the CLI without the section) uses: the defaults. */
export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  keepMs: 7 * 86_400_000,
  thresholds: [80, 95, 100],
};

/** One event as the stream holds it. */
export interface StoredEvent {
  /** The public event id: stable, opaque, unique across accounts and gateways sharing a Redis. */
  id: string;
  streamId: string;
  accountId: string;
  type: string;
  keyId: string | null;
  /** When it happened (ms, the gateway's clock). */
  at: number;
  /** Its own fields, as the script wrote them (amounts in µ₽). */
  fields: Readonly<Record<string, string>>;
}

/** An event handed to a worker, with the lease it holds it under. */
export interface ClaimedEvent {
  event: StoredEvent;
  /** Handed out for the first time (not a retry, nor taken over from a worker whose lease ran out). */
  isNew: boolean;
  /** When the worker's lease ends (ms): finish() must be called before, with this value. */
  leaseEnd: number;
}

/** An event as listed for people: the event, its delivery state (JSON) and whether a worker has had it. */
export interface ListedEvent {
  event: StoredEvent;
  state: string | null;
  handedOut: boolean;
}

export class EventStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly settings: EventSettings,
    readonly now: () => number,
  ) {}

  /** The event context the emitting scripts take as one argument (see emitEvent.lua). */
  context(now: number = this.now()): string {
    return JSON.stringify({
      now,
      keep_ms: this.settings.keepMs,
      thresholds: this.settings.thresholds.join(","),
    });
  }

  /**
   * Tells the workers that the account has work from `at` on. Written after a script emitted events, as a
   * separate command (the hint set is not the account's): a hint lost in a crash in between is found again by
   * the sweep. An earlier hint is kept (LT).
   */
  async markForWork(accountId: string, at: number = this.now()): Promise<void> {
    await this.redis.zadd(this.keys.alertWork(), "LT", at, accountId);
  }

  /**
   * markForWork after a change that has been made: a failure must not make its caller believe the change
   * failed (and retry it), since the sweep finds the work anyway.
   */
  async hintWork(accountId: string, at: number = this.now()): Promise<void> {
    await this.markForWork(accountId, at).catch(() => {});
  }

  /** Accounts whose hinted work is due at `now`, the most overdue first. */
  async accountsWithWork(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.alertWork(), "-inf", now, "LIMIT", 0, limit);
  }

  /** Takes the account's hint away before its work is looked at; a script emitting meanwhile sets it again. */
  async unmark(accountId: string): Promise<void> {
    await this.redis.zrem(this.keys.alertWork(), accountId);
  }

  /** Emits the account's time-based events due at `now` (at most `limit`); returns how many were emitted. */
  async fireDue(accountId: string, now: number, limit = 100): Promise<number> {
    const members = await this.redis.zrangebyscore(
      this.keys.eventsDue(accountId),
      "-inf",
      now,
      "LIMIT",
      0,
      limit,
    );
    if (members.length === 0) return 0;
    const records = members.map((member) => this.keys.key(accountId, member.split(" ")[0] as string));
    const emitted = await runScript<number>(
      this.redis,
      "fireDueEvents",
      [this.keys.eventsDue(accountId), this.keys.events(accountId), ...records],
      [this.context(now), ...members],
    );
    return Number(emitted);
  }

  /** Hands this worker up to `most` of the account's events to deliver now, each under a lease (claimEvents-2.lua). */
  async claim(
    accountId: string,
    consumer: string,
    now: number,
    leaseMs: number,
    most: number,
  ): Promise<ClaimedEvent[]> {
    const reply = await runScript<[string, number, string[]][]>(
      this.redis,
      "claimEvents",
      [this.keys.events(accountId), this.keys.deliveryQueue(accountId)],
      [DELIVERY_GROUP, consumer, now, leaseMs, most],
    );
    return reply.map(([streamId, isNew, fields]) => ({
      event: this.parse(accountId, streamId, fields),
      isNew: Number(isNew) === 1,
      leaseEnd: now + leaseMs,
    }));
  }

  /** The delivery states (JSON) of events, null for one never attempted. */
  async deliveryStates(accountId: string, streamIds: readonly string[]): Promise<(string | null)[]> {
    if (streamIds.length === 0) return [];
    return this.redis.mget(...streamIds.map((id) => this.keys.delivery(accountId, id)));
  }

  /**
   * Records an attempt's outcome (the delivery state as JSON) and when to try again, or null when the event is
   * done with; changes nothing if the worker's lease is no longer its own (finishDelivery-3.lua).
   */
  async finish(
    accountId: string,
    claimed: ClaimedEvent,
    state: string,
    nextAttemptAt: number | null,
  ): Promise<"done" | "retry" | "lease_lost"> {
    const { streamId } = claimed.event;
    const [outcome] = await runScript<[string]>(
      this.redis,
      "finishDelivery",
      [
        this.keys.events(accountId),
        this.keys.deliveryQueue(accountId),
        this.keys.delivery(accountId, streamId),
      ],
      [DELIVERY_GROUP, streamId, claimed.leaseEnd, state, this.settings.keepMs, nextAttemptAt ?? ""],
    );
    return outcome as "done" | "retry" | "lease_lost";
  }

  /**
   * When the account next has work (ms), or null for none: `now` if events wait to be handed out, else the
   * earliest retry or lease end, or time-based event. Read in one round trip (one account: one hash slot).
   */
  async nextWorkAt(accountId: string, now: number): Promise<number | null> {
    const results = await this.redis
      .pipeline()
      .xinfo("GROUPS", this.keys.events(accountId))
      .xrevrange(this.keys.events(accountId), "+", "-", "COUNT", 1)
      .zrange(this.keys.deliveryQueue(accountId), "0", "0", "WITHSCORES")
      .zrange(this.keys.eventsDue(accountId), "0", "0", "WITHSCORES")
      .exec();
    const [groups, last, queued, due] = (results ?? []).map(([error, value], i) => {
      // XINFO GROUPS of a stream that does not exist is an error: no stream, no events.
      if (error && i === 0) return [];
      if (error) throw error;
      return value;
    }) as [unknown[], [string, string[]][], string[], string[]];
    const times: number[] = [];
    const lastId = last[0]?.[0];
    if (lastId !== undefined) {
      const delivered = lastDeliveredId(groups);
      if (delivered === null || compareStreamIds(lastId, delivered) > 0) times.push(now);
    }
    if (queued[1] !== undefined) times.push(Number(queued[1]));
    if (due[1] !== undefined) times.push(Number(due[1]));
    return times.length === 0 ? null : Math.min(...times);
  }

  /**
   * When the account's oldest event not yet delivered happened (ms, its `at`), or null: the oldest of those
   * handed out and not yet acknowledged (being delivered or retried), and the first not yet handed out.
   */
  async oldestUndeliveredAt(accountId: string): Promise<number | null> {
    const stream = this.keys.events(accountId);
    const [groupsResult, pendingResult] =
      (await this.redis.pipeline().xinfo("GROUPS", stream).xpending(stream, DELIVERY_GROUP).exec()) ?? [];
    const groups = groupsResult?.[0] ? [] : (groupsResult?.[1] as unknown[]);
    const delivered = lastDeliveredId(groups);
    const candidates: string[] = [];
    if (!pendingResult?.[0]) {
      const smallest = (pendingResult?.[1] as unknown[] | undefined)?.[1];
      if (typeof smallest === "string") candidates.push(smallest);
    }
    const unread = await this.redis.xrange(
      stream,
      delivered === null ? "-" : `(${delivered}`,
      "+",
      "COUNT",
      1,
    );
    if (unread[0]) candidates.push(unread[0][0]);
    if (candidates.length === 0) return null;
    const oldest = candidates.sort(compareStreamIds)[0] as string;
    if (oldest === unread[0]?.[0]) return this.parse(accountId, oldest, unread[0][1]).at;
    const [entry] = await this.redis.xrange(stream, oldest, oldest);
    // Trimmed in between: the next look finds what is left.
    return entry ? this.parse(accountId, oldest, entry[1]).at : null;
  }

  /** The account's most recent events, newest first, with their delivery states. */
  async recent(accountId: string, limit: number): Promise<ListedEvent[]> {
    const stream = this.keys.events(accountId);
    const [entries, groups] = await Promise.all([
      this.redis.xrevrange(stream, "+", "-", "COUNT", limit),
      this.redis.xinfo("GROUPS", stream).then(
        (value) => value as unknown[],
        () => [],
      ),
    ]);
    const delivered = lastDeliveredId(groups);
    const states = await this.deliveryStates(
      accountId,
      entries.map(([id]) => id),
    );
    return entries.map(([streamId, fields], i) => ({
      event: this.parse(accountId, streamId, fields),
      state: states[i] ?? null,
      handedOut: delivered !== null && compareStreamIds(streamId, delivered) <= 0,
    }));
  }

  /** Takes the sweep of every account for `forMs`, unless another replica holds it. */
  async claimSweep(owner: string, forMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.alertSweep(), owner, "PX", forMs, "NX")) === "OK";
  }

  private parse(accountId: string, streamId: string, flat: readonly string[]): StoredEvent {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    const { type = "", key = "", at = "0", ...own } = fields;
    return {
      id: eventId(this.keys.prefix, accountId, streamId),
      streamId,
      accountId,
      type,
      keyId: key === "" ? null : key,
      at: Number(at),
      fields: own,
    };
  }
}

/**
 * The public id of an event: `evt_` and 24 hex characters of a hash of where it is stored, so that it is the
 * same on every delivery attempt and from every replica, and says nothing of the account or the time.
 */
export function eventId(prefix: string, accountId: string, streamId: string): string {
  return `evt_${createHash("sha256").update(`${prefix}\n${accountId}\n${streamId}`).digest("hex").slice(0, 24)}`;
}

/** Orders stream ids ("<ms>-<seq>") as Redis does. */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split("-").map(Number) as [number, number];
  const [bMs, bSeq] = b.split("-").map(Number) as [number, number];
  return aMs - bMs || aSeq - bSeq;
}

/** The delivery group's last-delivered-id from XINFO GROUPS, or null when the group does not exist yet. */
function lastDeliveredId(groups: unknown[]): string | null {
  for (const group of groups) {
    const flat = group as unknown[];
    const fields = new Map<unknown, unknown>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i], flat[i + 1]);
    if (fields.get("name") === DELIVERY_GROUP) return String(fields.get("last-delivered-id"));
  }
  return null;
}
