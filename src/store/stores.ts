// Every store over one Redis connection under one prefix, with the billing calendar and a clock that tests can
// set: what the services, the admin API and the gateway's request path read and write through. Opened once
// per process — by the gateway (with its Redis timings observed), by each CLI session, by the demo — and
// handed to whoever needs it (each part takes the stores it uses).

import { PeriodCalendar } from "../core/periods.js";
import { AccountStore } from "./accounts/account-store.js";
import { AlertSettingsStore } from "./accounts/alert-settings-store.js";
import { DEFAULT_EVENT_SETTINGS, type EventSettings, EventStore } from "./accounts/event-store.js";
import { AuditStore } from "./audit/audit-store.js";
import type { BillingSettings } from "./billing/billing-connection.js";
import { BillingStore } from "./billing/billing-store.js";
import type { RedisClient } from "./connection/redis.js";
import type { ReplicaAcks } from "./connection/replica-acks.js";
import type { RedisObserver } from "./connection/timing.js";
import { KeyStore } from "./keys/key-store.js";
import { ApiTokenStore } from "./people/api-token-store.js";
import { InvitationStore } from "./people/invitation-store.js";
import { OneTimeStore } from "./people/one-time-store.js";
import { ProviderLinkStore } from "./people/provider-link-store.js";
import { ScimStore } from "./people/scim-store.js";
import { ScimTokenStore } from "./people/scim-token-store.js";
import { SessionStore } from "./people/session-store.js";
import { SignInAttemptsStore } from "./people/sign-in-attempts-store.js";
import { UserStore } from "./people/user-store.js";
import { RedisKeys } from "./redis-keys.js";
import { SharingStore } from "./sharing/sharing-store.js";
import { UpstreamSlotStore } from "./sharing/upstream-slots-store.js";
import { RequestLogStore } from "./usage/request-log-store.js";
import { UsageStore } from "./usage/usage-store.js";

export interface Stores {
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
  /** SCIM provisioning: users' SCIM attributes, groups and their members; the SCIM tokens. */
  scim: ScimStore;
  scimTokens: ScimTokenStore;
  /** People's links to identity providers, for re-checking them between sign-ins. */
  providerLinks: ProviderLinkStore;
  /** How accounts and keys share a full model server, and the server's places shared by replicas. */
  sharing: SharingStore;
  upstreamSlots: UpstreamSlotStore;
  calendar: PeriodCalendar;
  now: () => number;
}

export interface StoresOptions {
  prefix: string;
  timezone: string;
  now?: () => number;
  /** What the billing scripts keep (the configuration's; the defaults serve the CLI, which settles nothing). */
  billing?: BillingSettings;
  /** Told how long the request path's Redis operations take (the metrics). */
  observe?: RedisObserver;
  /** How long events are kept and the default budget thresholds (the configuration's alerts section). */
  events?: EventSettings;
  /** Where settlements go when they must reach replicas (the gateway's; none for the CLI). */
  replicaAcks?: ReplicaAcks | null;
}

/** The defaults of config/default.yaml, for processes that never settle a request (the CLI). */
const DEFAULT_BILLING: BillingSettings = {
  usageRetentionDays: 400,
  lateSettlementSeconds: 86_400,
  requestLogMaxPerKey: 1000,
  requestLogRetentionDays: 30,
};

export function openStores(redis: RedisClient, options: StoresOptions): Stores {
  const redisKeys = new RedisKeys(options.prefix);
  const now = options.now ?? Date.now;
  const events = new EventStore(redis, redisKeys, options.events ?? DEFAULT_EVENT_SETTINGS, now);
  const billing = new BillingStore(
    redis,
    redisKeys,
    options.billing ?? DEFAULT_BILLING,
    events,
    options.observe,
    options.replicaAcks ?? null,
  );
  return {
    redisKeys,
    accounts: new AccountStore(redis, redisKeys),
    keys: new KeyStore(redis, redisKeys, events, options.observe),
    billing,
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
    scim: new ScimStore(redis, redisKeys),
    scimTokens: new ScimTokenStore(redis, redisKeys),
    providerLinks: new ProviderLinkStore(redis, redisKeys),
    sharing: new SharingStore(redis, redisKeys, options.observe),
    upstreamSlots: new UpstreamSlotStore(redis, redisKeys, billing.replicaId, options.observe),
    calendar: new PeriodCalendar(options.timezone),
    now,
  };
}
