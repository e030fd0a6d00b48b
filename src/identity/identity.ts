// The identity layer built once per process over the service context: people, their sessions, API tokens,
// invitations, password sign-in and one-time links, credentials, and the identity providers. The gateway's
// admin listener and the CLI each build one.

import type { Logger } from "pino";
import type { Stores } from "../store/stores.js";
import { ApiTokens } from "./api-tokens.js";
import { Credentials } from "./credentials.js";
import { Invitations } from "./invitations.js";
import { Links } from "./links.js";
import { OidcProviders } from "./oidc.js";
import { PasswordSignIn } from "./password-sign-in.js";
import { Sessions } from "./sessions.js";
import type { IdentitySettings } from "./settings.js";
import { SignInAttempts } from "./sign-in-attempts.js";
import { Users } from "./users.js";

export interface Identity {
  settings: IdentitySettings;
  users: Users;
  sessions: Sessions;
  credentials: Credentials;
  tokens: ApiTokens;
  invitations: Invitations;
  passwords: PasswordSignIn;
  oidc: OidcProviders;
  /** For sign-ins and sign-outs, which are logged (they change nothing, so they are not audited). */
  logger: Logger;
}

export interface IdentityOptions {
  /** The operator's admin token (admin.token), the legacy operator credential. */
  adminToken?: string | undefined;
  logger: Logger;
  /** The providers' client secrets (oidc.ts providerSecrets); none for a process that signs nobody in. */
  providerSecrets?: ReadonlyMap<string, string | null>;
}

export function buildIdentity(ctx: Stores, settings: IdentitySettings, options: IdentityOptions): Identity {
  const { now } = ctx;
  const users = new Users(ctx.users, ctx.sessions, settings.minPasswordLength, now);
  const sessions = new Sessions(
    ctx.sessions,
    { idleMs: settings.idleMs, absoluteMs: settings.absoluteMs },
    now,
  );
  const links = new Links(ctx.links, now);
  return {
    settings,
    users,
    sessions,
    credentials: new Credentials({
      adminToken: options.adminToken,
      accounts: ctx.accounts,
      apiTokens: ctx.apiTokens,
      users: ctx.users,
      sessions,
      now,
    }),
    tokens: new ApiTokens(ctx.apiTokens, settings.maxTokenMs, now),
    invitations: new Invitations({
      store: ctx.invitations,
      links,
      users,
      accounts: ctx.accounts,
      ttlMs: settings.invitationMs,
      localUsers: settings.localUsers,
      now,
    }),
    passwords: new PasswordSignIn(
      users,
      new SignInAttempts(ctx.signInAttempts, settings.attempts, now),
      links,
      settings.passwordLinkMs,
      now,
    ),
    logger: options.logger,
    oidc: new OidcProviders(settings.providers, {
      states: ctx.oidcStates,
      users,
      userStore: ctx.users,
      externalUrl: settings.externalUrl,
      logger: options.logger,
      secrets: options.providerSecrets ?? new Map(),
      now,
    }),
  };
}
