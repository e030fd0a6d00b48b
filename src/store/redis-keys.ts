// Every Redis key the gateway uses, in one place. Everything that belongs to one account carries the hash
// tag {a:<account>}, so that a script touching several of them works unchanged on Redis Cluster (all of an
// account's keys live in one slot). Only the lookups that must be found without knowing the account — key
// hash -> key, key id -> account and dashboard-token hash -> account — the list of accounts and the alert
// workers' hints stand outside the tag; they are read and written by single-key commands.

export class RedisKeys {
  constructor(readonly prefix: string) {}

  private tag(accountId: string): string {
    return `${this.prefix}{a:${accountId}}`;
  }

  /** hash: id, name, balance (µ₽), created_at (ms) */
  account(accountId: string): string {
    return `${this.tag(accountId)}:account`;
  }

  /** zset: key id -> creation time (ms) */
  accountKeys(accountId: string): string {
    return `${this.tag(accountId)}:keys`;
  }

  /** hash: the key record (see store/records.ts) */
  key(accountId: string, keyId: string): string {
    return `${this.tag(accountId)}:key:${keyId}`;
  }

  /** zset: reservation id -> expiry (ms) */
  reservations(accountId: string): string {
    return `${this.tag(accountId)}:resv`;
  }

  /** hash: reservation id -> "<keyId> <amount>" while in flight, "expired" once it expired unsettled */
  reservationRecords(accountId: string): string {
    return `${this.tag(accountId)}:resv:rec`;
  }

  /** hash: key id -> µ₽ reserved by its requests in flight; "*" -> µ₽ reserved for the whole account */
  reserved(accountId: string): string {
    return `${this.tag(accountId)}:reserved`;
  }

  /**
   * sharded pub/sub channel: the account's changes that replicas' admission leases rely on (a key id, '*' for
   * the account, 'reclaim <keyId>'); see lua/includes/publishChange.lua
   */
  changes(accountId: string): string {
    return `${this.tag(accountId)}:changes`;
  }

  /** hash: marker -> 1 for each leased settlement of one replica whose reply it has not yet acknowledged */
  settlementMarkers(accountId: string, replicaId: string): string {
    return `${this.tag(accountId)}:settled:${replicaId}`;
  }

  /** hash: one key's usage counters for one calendar day (YYYY-MM-DD in the billing time zone) */
  usage(accountId: string, keyId: string, day: string): string {
    return `${this.tag(accountId)}:usage:${keyId}:${day}`;
  }

  /** hash: the account's requests and cost (µ₽) in one calendar month (YYYY-MM in the billing time zone) */
  month(accountId: string, month: string): string {
    return `${this.tag(accountId)}:month:${month}`;
  }

  /**
   * list: the key's most recent requests, newest first, as JSON (capped by requestLog.maxPerKey; expires
   * requestLog.retentionDays after the latest)
   */
  requestLog(accountId: string, keyId: string): string {
    return `${this.tag(accountId)}:reqlog:${keyId}`;
  }

  /** list: the account's audit log, newest first, as JSON */
  audit(accountId: string): string {
    return `${this.tag(accountId)}:audit`;
  }

  /**
   * stream: the account's alert events, oldest first, each written by the script whose change causes it (see
   * src/core/event-types.ts); the delivery workers read it as one consumer group
   */
  events(accountId: string): string {
    return `${this.tag(accountId)}:events`;
  }

  /** zset: "<keyId> <kind> <expiresAt>" -> when that time-based event of a key is due (ms) */
  eventsDue(accountId: string): string {
    return `${this.tag(accountId)}:events:due`;
  }

  /** zset: stream id of an event being delivered -> when it next needs a worker (ms): its retry, or its lease's end */
  deliveryQueue(accountId: string): string {
    return `${this.tag(accountId)}:events:retry`;
  }

  /** string: one event's delivery to each endpoint (JSON), kept as long as events are */
  delivery(accountId: string, streamId: string): string {
    return `${this.tag(accountId)}:delivery:${streamId}`;
  }

  /** hash: the account's own webhook: url, secret, events, hint, created_at */
  webhook(accountId: string): string {
    return `${this.tag(accountId)}:webhook`;
  }

  /** string: SHA-256 of an account's dashboard token -> account id */
  accountToken(hash: string): string {
    return `${this.prefix}acctoken:${hash}`;
  }

  /** string: SHA-256 of a key value -> "<accountId>:<keyId>"; never changes once written */
  keyHash(hash: string): string {
    return `${this.prefix}keyhash:${hash}`;
  }

  /** string: key id -> account id */
  keyAccount(keyId: string): string {
    return `${this.prefix}keyid:${keyId}`;
  }

  /** zset: account id -> creation time (ms) */
  accounts(): string {
    return `${this.prefix}accounts`;
  }

  /**
   * zset: account id -> when the account next has alert work (ms): events to deliver or retry, time-based
   * events due. A hint the workers poll, written after the scripts; rebuilt from the accounts' own keys by the
   * periodic sweep, so that a hint lost in a crash only delays delivery
   */
  alertWork(): string {
    return `${this.prefix}alerts:work`;
  }

  /** string: held by the replica sweeping every account for alert work, so that one sweeps at a time */
  alertSweep(): string {
    return `${this.prefix}alerts:sweep`;
  }
}
