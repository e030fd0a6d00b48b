// What the identity layer needs of the configuration (admin.externalUrl and the signIn section), in the units
// it works in, derived once.

import type { Config } from "../config/schema.js";
import type { AttemptLimits } from "../store/people/sign-in-attempts-store.js";

export type ProviderSettings = Config["signIn"]["providers"][number];

export interface IdentitySettings {
  /**
   * The dashboard's origin as browsers reach it (admin.externalUrl), or null: then the admin listener's own
   * address, as each request names it in its Host header.
   */
  externalUrl: string | null;
  localUsers: boolean;
  minPasswordLength: number;
  passwordLinkMs: number;
  attempts: AttemptLimits;
  idleMs: number;
  absoluteMs: number;
  invitationMs: number;
  maxTokenMs: number;
  /** How often a person signed in with a provider is re-checked with it; 0: never between sign-ins. */
  providerCheckMs: number;
  /** How long a provider that cannot be asked keeps its people's sessions alive since it last confirmed them. */
  providerGraceMs: number;
  providers: readonly ProviderSettings[];
  /** The provider whose mapping rules SCIM groups go through (signIn.scim.provider), or null. */
  scimProvider: string | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function identitySettings(config: Pick<Config, "admin" | "signIn">): IdentitySettings {
  const { signIn } = config;
  return {
    externalUrl: config.admin.externalUrl ? new URL(config.admin.externalUrl).origin : null,
    localUsers: signIn.local.enabled,
    minPasswordLength: signIn.local.minPasswordLength,
    passwordLinkMs: signIn.local.passwordLinkHours * HOUR,
    attempts: {
      limit: signIn.attempts.maxFailures,
      windowMs: signIn.attempts.windowSeconds * 1000,
      firstLockMs: signIn.attempts.firstLockSeconds * 1000,
      longestLockMs: signIn.attempts.longestLockSeconds * 1000,
      memoryMs: DAY,
    },
    idleMs: signIn.sessions.idleMinutes * MINUTE,
    absoluteMs: signIn.sessions.absoluteHours * HOUR,
    invitationMs: signIn.invitations.ttlDays * DAY,
    maxTokenMs: signIn.apiTokens.maxDays * DAY,
    providerCheckMs: signIn.providerCheck.intervalMinutes * MINUTE,
    providerGraceMs: signIn.providerCheck.graceMinutes * MINUTE,
    providers: signIn.providers,
    scimProvider: signIn.scim.provider ?? null,
  };
}

/** Whether people can sign in at all: then the admin listener opens even without an admin token. */
export function signInConfigured(settings: IdentitySettings): boolean {
  return settings.localUsers || settings.providers.length > 0;
}
