// Every Redis key the gateway uses, in one place. Everything that belongs to one account carries the hash
// tag {a:<account>}, and everything of one person the tag {u:<user>}, so that a script touching several of
// them works unchanged on Redis Cluster (all of an account's keys live in one slot, all of a person's in
// another). Only the lookups that must be found without knowing the account or the person — key hash -> key,
// key id -> account, dashboard-token hash -> account, e-mail -> user, provider subject -> user, session and
// API-token hashes, one-time links — the lists of accounts and users, sign-in attempt counters and the alert
// workers' hints stand outside the tags; they are read and written by single-key commands (or, for the
// attempt counters, by scripts over keys of one tag of their own).

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

  /** hash: user id -> the person's grants in the account as JSON (source -> role); the truth about access */
  members(accountId: string): string {
    return `${this.tag(accountId)}:members`;
  }

  /** hash: invitation id -> the pending invitation as JSON (e-mail, role, expiry, its link's hash) */
  invitations(accountId: string): string {
    return `${this.tag(accountId)}:invitations`;
  }

  private userTag(userId: string): string {
    return `${this.prefix}{u:${userId}}`;
  }

  /** hash: the user record (see store/people/user-store.ts) */
  user(userId: string): string {
    return `${this.userTag(userId)}:user`;
  }

  /**
   * set: the accounts the person has grants in; an index for listing them, each checked against the
   * account's own members hash, which alone decides access
   */
  userAccounts(userId: string): string {
    return `${this.userTag(userId)}:accounts`;
  }

  /** zset: SHA-256 of each of the person's session ids -> creation time (ms) */
  userSessions(userId: string): string {
    return `${this.userTag(userId)}:sessions`;
  }

  /** zset: id of each of the person's API tokens -> creation time (ms) */
  userTokens(userId: string): string {
    return `${this.userTag(userId)}:tokens`;
  }

  /** hash: one API token: id, name, role, account, hash, hint, created_at, expires_at, last_used_at */
  apiToken(userId: string, tokenId: string): string {
    return `${this.userTag(userId)}:token:${tokenId}`;
  }

  /** list: the person's audit log (user record, operator role, API tokens), newest first, as JSON */
  userAudit(userId: string): string {
    return `${this.userTag(userId)}:audit`;
  }

  /** zset: user id -> creation time (ms) */
  users(): string {
    return `${this.prefix}users`;
  }

  /** string: case-folded e-mail -> user id (one user per e-mail) */
  userEmail(email: string): string {
    return `${this.prefix}user-email:${email}`;
  }

  /** string: SHA-256 of an identity provider's subject -> user id */
  oidcSubject(providerId: string, subjectHash: string): string {
    return `${this.prefix}oidc-subject:${providerId}:${subjectHash}`;
  }

  /**
   * hash: the person's link to one identity provider, for re-checking them between sign-ins: subject, the
   * provider's tokens sealed (identity/token-cipher.ts), when the provider last confirmed them
   */
  providerLink(userId: string, providerId: string): string {
    return `${this.userTag(userId)}:provider:${providerId}`;
  }

  /**
   * string: an operator's leave for the person's next sign-in with one provider to link to them although they
   * sign in another way: the time it ends (ms); expires with it
   */
  linkAllowance(userId: string, providerId: string): string {
    return `${this.userTag(userId)}:allow-link:${providerId}`;
  }

  /** zset: "<userId> <providerId>" -> when that link is next re-checked with its provider (ms) */
  providerChecks(): string {
    return `${this.prefix}provider-checks`;
  }

  /** hash: a session, found by the SHA-256 of its id (which alone is never stored) */
  session(hash: string): string {
    return `${this.prefix}session:${hash}`;
  }

  /** string: SHA-256 of an API token's value -> "<userId>:<tokenId>" */
  apiTokenHash(hash: string): string {
    return `${this.prefix}apitoken:${hash}`;
  }

  /**
   * SCIM provisioning's keys, all under one tag so that a token, a group or a user's SCIM attributes change
   * together with their lookups and the SCIM log in one MULTI: `tokens` (hash: token id -> JSON record),
   * `tokenHash` (hash: SHA-256 of a token's value -> token id), `tokenUsed` (hash: token id -> last use, ms),
   * `groups` (zset: group id ->
   * creation time), `groupName` (hash: case-folded displayName -> group id), `groupExternal` (hash:
   * externalId -> group id), `userExternal` (hash: externalId -> user id), `deleted` (set: user ids a SCIM
   * client deleted, which it no longer sees)
   */
  scim(): {
    tokens: string;
    tokenHash: string;
    tokenUsed: string;
    groups: string;
    groupName: string;
    groupExternal: string;
    userExternal: string;
    deleted: string;
  } {
    const tag = `${this.prefix}{scim}`;
    return {
      tokens: `${tag}:tokens`,
      tokenHash: `${tag}:token-hash`,
      tokenUsed: `${tag}:token-used`,
      groups: `${tag}:groups`,
      groupName: `${tag}:group-name`,
      groupExternal: `${tag}:group-external`,
      userExternal: `${tag}:user-external`,
      deleted: `${tag}:deleted`,
    };
  }

  /** list: the SCIM log (tokens and groups), newest first */
  scimAudit(): string {
    return `${this.prefix}{scim}:audit`;
  }

  /** hash and set of one SCIM group: id, display_name, external_id, created_at, modified_at; member user ids */
  scimGroup(groupId: string): { group: string; members: string } {
    const tag = `${this.prefix}{scim}`;
    return { group: `${tag}:group:${groupId}`, members: `${tag}:group:${groupId}:members` };
  }

  /** hash: a user's SCIM attributes we keep beside the user record (external_id, names, emails, modified_at) */
  scimUser(userId: string): string {
    return `${this.prefix}{scim}:user:${userId}`;
  }

  /** string: a one-time link (invitation, set-password), found by the SHA-256 of its token, as JSON */
  oneTimeLink(hash: string): string {
    return `${this.prefix}link:${hash}`;
  }

  /** string: a sign-in with a provider under way (PKCE verifier, nonce, return path), by the SHA-256 of its state */
  oidcState(hash: string): string {
    return `${this.prefix}oidc-state:${hash}`;
  }

  /**
   * zset and hash of one sign-in subject (a case-folded e-mail's hash, or a client address): its recent
   * failures (member and score: time in ms) and its lock (locked_until, lockouts), under a tag of their own
   */
  signInFailures(subject: string): { failures: string; lock: string } {
    const tag = `${this.prefix}{f:${subject}}`;
    return { failures: `${tag}:failures`, lock: `${tag}:lock` };
  }

  /**
   * hash and zset of the model server's places shared by the replicas (upstream.sharedInFlight): replica id ->
   * "<held> <demand>", and replica id -> when its count expires (ms), under a tag of their own
   */
  upstreamSlots(): { held: string; alive: string } {
    const tag = `${this.prefix}{upstream}`;
    return { held: `${tag}:slots`, alive: `${tag}:slots:alive` };
  }
}
