// What the service layer, the admin API and the gateway's request path share: the stores over one Redis
// connection, the billing calendar and a clock that tests can set. Built once per process — by the gateway
// (with its Redis timings observed), by each CLI session, by the demo — and handed to whoever needs it.

import { PeriodCalendar } from "../billing/periods.js";
import { AccountStore } from "../store/account-store.js";
import { AlertSettingsStore } from "../store/alert-settings-store.js";
import { ApiTokenStore } from "../store/api-token-store.js";
import { AuditStore } from "../store/audit-store.js";
import type { BillingSettings } from "../store/billing-connection.js";
import { BillingStore } from "../store/billing-store.js";
import { DEFAULT_EVENT_SETTINGS, type EventSettings, EventStore } from "../store/event-store.js";
import { InvitationStore } from "../store/invitation-store.js";
import { KeyStore } from "../store/key-store.js";
import { OneTimeStore } from "../store/one-time-store.js";
import type { RedisClient } from "../store/redis.js";
import { RedisKeys } from "../store/redis-keys.js";
import { RequestLogStore } from "../store/request-log-store.js";
import { SessionStore } from "../store/session-store.js";
import { SignInAttemptsStore } from "../store/sign-in-attempts-store.js";
import type { RedisObserver } from "../store/timing.js";
import { UsageStore } from "../store/usage-store.js";
import { UserStore } from "../store/user-store.js";

export interface ServiceContext {
  redisKeys: RedisKeys;
  accounts: AccountStore;
  keys: KeyStore;
  billing: BillingStore;
  audit: AuditStore;
  usage: UsageStore;
  requestLog: RequestLogStore;
  events: EventStore;
  alertSettings: AlertSettingsStore;
  /** People, their sessions, API tokens, invitations, one-time links and sign-ins (src/identity). */
  users: UserStore;
  sessions: SessionStore;
  apiTokens: ApiTokenStore;
  invitations: InvitationStore;
  links: OneTimeStore;
  oidcStates: OneTimeStore;
  signInAttempts: SignInAttemptsStore;
  calendar: PeriodCalendar;
  now: () => number;
}

export interface ServiceContextOptions {
  prefix: string;
  timezone: string;
  now?: () => number;
  /** What the billing scripts keep (the configuration's; the defaults serve the CLI, which settles nothing). */
  billing?: BillingSettings;
  /** Told how long the request path's Redis operations take (the metrics). */
  observe?: RedisObserver;
  /** How long events are kept and the default budget thresholds (the configuration's alerts section). */
  events?: EventSettings;
}

/** The defaults of config/default.yaml, for contexts that never settle a request. */
const DEFAULT_BILLING: BillingSettings = {
  usageRetentionDays: 400,
  lateSettlementSeconds: 86_400,
  requestLogMaxPerKey: 1000,
  requestLogRetentionDays: 30,
};

export function buildServiceContext(redis: RedisClient, options: ServiceContextOptions): ServiceContext {
  const redisKeys = new RedisKeys(options.prefix);
  const now = options.now ?? Date.now;
  const events = new EventStore(redis, redisKeys, options.events ?? DEFAULT_EVENT_SETTINGS, now);
  return {
    redisKeys,
    accounts: new AccountStore(redis, redisKeys),
    keys: new KeyStore(redis, redisKeys, events, options.observe),
    billing: new BillingStore(redis, redisKeys, options.billing ?? DEFAULT_BILLING, events, options.observe),
    audit: new AuditStore(redis, redisKeys),
    usage: new UsageStore(redis, redisKeys),
    requestLog: new RequestLogStore(redis, redisKeys),
    events,
    alertSettings: new AlertSettingsStore(redis, redisKeys),
    users: new UserStore(redis, redisKeys),
    sessions: new SessionStore(redis, redisKeys),
    apiTokens: new ApiTokenStore(redis, redisKeys),
    invitations: new InvitationStore(redis, redisKeys),
    links: new OneTimeStore(redis, (hash) => redisKeys.oneTimeLink(hash)),
    oidcStates: new OneTimeStore(redis, (hash) => redisKeys.oidcState(hash)),
    signInAttempts: new SignInAttemptsStore(redis, redisKeys),
    calendar: new PeriodCalendar(options.timezone),
    now,
  };
}
