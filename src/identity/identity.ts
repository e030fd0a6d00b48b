// The identity layer built once per process over the service context: people, their sessions, API tokens,
// invitations, password sign-in and one-time links, credentials, and the identity providers. The gateway's
// admin listener and the CLI each build one.

import type { Logger } from "pino";
import { IdentityEvents } from "../core/channels.js";
import type { Stores } from "../store/stores.js";
import { ApiTokens } from "./api-tokens.js";
import { Credentials } from "./credentials.js";
import { Invitations } from "./invitations.js";
import { Links } from "./links.js";
import { OidcProviders } from "./oidc.js";
import { ProviderPeople } from "./oidc-person.js";
import { PasswordSignIn } from "./password-sign-in.js";
import { ProviderChecks } from "./provider-check.js";
import { RoleGrants } from "./role-grants.js";
import { buildScim, type Scim } from "./scim/scim.js";
import { Sessions } from "./sessions.js";
import type { IdentitySettings } from "./settings.js";
import { SignInAttempts } from "./sign-in-attempts.js";
import { Users } from "./users.js";

export interface Identity {
  settings: IdentitySettings;
  /**
   * Where identity events (declared in core/identity-events.ts, their channels in core/channels.ts) are
   * published: sign-ins, lockouts, passwords, tokens, sessions, provider re-checks — and SCIM's changes,
   * which call `events.publish("scim.…", …)`.
   */
  events: IdentityEvents;
  users: Users;
  /** Who holds which role: grants in accounts and as operators, members and memberships. */
  grants: RoleGrants;
  sessions: Sessions;
  credentials: Credentials;
  tokens: ApiTokens;
  invitations: Invitations;
  passwords: PasswordSignIn;
  oidc: OidcProviders;
  /** SCIM provisioning: its tokens, users and groups (docs/scim.md). */
  scim: Scim;
  /** Who a provider's identity is: linking it to a person (and an operator's leave to link). */
  people: ProviderPeople;
  /** Re-checks people signed in with a provider between sign-ins (started by the gateway). */
  checks: ProviderChecks;
  /** For sign-ins and sign-outs, which are logged (they change nothing, so they are not audited). */
  logger: Logger;
}

export interface IdentityOptions {
  /** The operator's admin token (admin.token), the legacy operator credential. */
  adminToken?: string | undefined;
  logger: Logger;
  /** The providers' client secrets (oidc.ts providerSecrets); none for a process that signs nobody in. */
  providerSecrets?: ReadonlyMap<string, string | null>;
  /** Where identity events go (a gateway subscribes its log line and metric to it); a new one by default. */
  events?: IdentityEvents;
}

export function buildIdentity(ctx: Stores, settings: IdentitySettings, options: IdentityOptions): Identity {
  const { now } = ctx;
  const events = options.events ?? new IdentityEvents();
  const grants = new RoleGrants(ctx.users, now);
  const users = new Users(ctx.users, ctx.sessions, grants, settings.minPasswordLength, now, events);
  const sessions = new Sessions(
    ctx.sessions,
    { idleMs: settings.idleMs, absoluteMs: settings.absoluteMs },
    now,
  );
  const links = new Links(ctx.links, now);
  const tokens = new ApiTokens(ctx.apiTokens, settings.maxTokenMs, now, events);
  const people: ProviderPeople = new ProviderPeople({
    users,
    grants,
    userStore: ctx.users,
    links: ctx.providerLinks,
    events,
    logger: options.logger,
    cipher: (id) => oidc.cipher(id),
    provider: (id) => oidc.settings(id),
    scimProvider: settings.scimProvider,
    madeByScim: async (userId) => (await ctx.scim.userAttributes(userId)) !== null,
    checkIntervalMs: settings.providerCheckMs,
    allowanceMs: settings.passwordLinkMs,
    now,
  });
  const oidc: OidcProviders = new OidcProviders(settings.providers, {
    states: ctx.oidcStates,
    people,
    externalUrl: settings.externalUrl,
    logger: options.logger,
    secrets: options.providerSecrets ?? new Map(),
    events,
    now,
  });
  return {
    settings,
    events,
    users,
    grants,
    sessions,
    credentials: new Credentials({
      adminToken: options.adminToken,
      accounts: ctx.accounts,
      apiTokens: ctx.apiTokens,
      users: ctx.users,
      sessions,
      now,
    }),
    tokens,
    invitations: new Invitations({
      store: ctx.invitations,
      links,
      users,
      grants,
      accounts: ctx.accounts,
      ttlMs: settings.invitationMs,
      localUsers: settings.localUsers,
      providers: settings.providers,
      events,
      now,
    }),
    passwords: new PasswordSignIn(
      users,
      new SignInAttempts(ctx.signInAttempts, settings.attempts, now),
      links,
      settings.passwordLinkMs,
      now,
      events,
    ),
    logger: options.logger,
    oidc,
    scim: buildScim(ctx, {
      users,
      grants,
      apiTokens: tokens,
      provider: settings.providers.find((provider) => provider.id === settings.scimProvider) ?? null,
      events,
      logger: options.logger,
    }),
    people,
    checks: new ProviderChecks({
      oidc,
      people,
      links: ctx.providerLinks,
      sessions,
      users,
      grants,
      events,
      logger: options.logger,
      intervalMs: settings.providerCheckMs,
      graceMs: settings.providerGraceMs,
      now,
    }),
  };
}
