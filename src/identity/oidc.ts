// Signing in with OpenID Connect providers, through openid-client (a certified relying party): the
// authorization code flow with PKCE (S256), state and nonce. The state, the PKCE verifier and the nonce are
// kept in Redis under the state's hash (ten minutes, taken once) and bound to the browser that started the
// sign-in by a cookie of its own. At the callback the ID token is checked by openid-client; the groups come
// from its groups claim, or from userinfo when the ID token lacks it; the person is found by the provider's
// subject (or, the first time, created — or linked to a user with the same verified e-mail); and the
// provider's mapping rules are applied again, so that leaving a group removes its roles.
//
// Discovery happens in the background at start-up and again on use while it fails (at most every 30
// seconds): a provider that cannot be reached never stops the gateway; signing in with it answers
// identity_provider_unavailable until it can.

import * as client from "openid-client";
import type { Logger } from "pino";
import { GatewayError } from "../core/errors.js";
import { oidcSource } from "../core/roles.js";
import type { Actor } from "../store/audit-store.js";
import type { OneTimeStore } from "../store/one-time-store.js";
import type { UserRecord, UserStore } from "../store/user-store.js";
import { groupsOf, mapIdentity } from "./group-mapping.js";
import { sameSecret, sha256 } from "./secrets.js";
import type { ProviderSettings } from "./settings.js";
import type { Users } from "./users.js";

export { providerSecrets } from "./provider-secrets.js";

/** How long a sign-in may take between leaving for the provider and coming back. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
const RETRY_DISCOVERY_MS = 30_000;
const DISCOVERY_TIMEOUT_SECONDS = 10;

/** Plain-HTTP issuers are accepted on loopback only (a provider run for development or tests). */
function isLoopback(url: URL): boolean {
  return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname) || url.hostname.startsWith("127.");
}

interface Provider {
  settings: ProviderSettings;
  secret: string | null;
  config: client.Configuration | null;
  discovering: Promise<client.Configuration> | null;
  failedAt: number | null;
}

interface PendingSignIn {
  provider: string;
  verifier: string;
  nonce: string;
  returnTo: string;
  /** SHA-256 of the secret in the browser's sign-in cookie. */
  binding: string;
}

export interface OidcDeps {
  states: OneTimeStore;
  users: Users;
  userStore: UserStore;
  /** The dashboard's origin, for the default redirect URLs (null: the request's). */
  externalUrl: string | null;
  logger: Logger;
  /** Client secrets by provider id (providerSecrets). */
  secrets: ReadonlyMap<string, string | null>;
  now: () => number;
}

export interface SignedInWithProvider {
  user: UserRecord;
  provider: string;
  returnTo: string;
}

export class OidcProviders {
  private readonly providers = new Map<string, Provider>();

  constructor(
    providers: readonly ProviderSettings[],
    private readonly deps: OidcDeps,
  ) {
    for (const settings of providers) {
      this.providers.set(settings.id, {
        settings,
        secret: deps.secrets.get(settings.id) ?? null,
        config: null,
        discovering: null,
        failedAt: null,
      });
    }
  }

  /** Starts discovering every provider in the background; failures are logged, and retried on use. */
  warmUp(): void {
    for (const provider of this.providers.values()) void this.configuration(provider).catch(() => {});
  }

  private provider(id: string): Provider {
    const provider = this.providers.get(id);
    if (!provider) throw new GatewayError("provider_not_found", `no identity provider ${id} is configured`);
    return provider;
  }

  private configuration(provider: Provider): Promise<client.Configuration> {
    if (provider.config) return Promise.resolve(provider.config);
    if (provider.discovering) return provider.discovering;
    if (provider.failedAt !== null && this.deps.now() - provider.failedAt < RETRY_DISCOVERY_MS)
      return Promise.reject(unavailable(provider.settings));
    const { settings } = provider;
    const issuer = new URL(settings.issuer);
    provider.discovering = client
      .discovery(
        issuer,
        settings.clientId,
        provider.secret ?? undefined,
        provider.secret === null ? client.None() : client.ClientSecretPost(provider.secret),
        {
          timeout: DISCOVERY_TIMEOUT_SECONDS,
          ...(issuer.protocol === "http:" &&
            isLoopback(issuer) && { execute: [client.allowInsecureRequests] }),
        },
      )
      .then(
        (config) => {
          provider.config = config;
          provider.failedAt = null;
          this.deps.logger.info(
            { provider: settings.id, issuer: settings.issuer },
            "identity provider discovered",
          );
          return config;
        },
        (error: unknown) => {
          provider.failedAt = this.deps.now();
          this.deps.logger.warn(
            { provider: settings.id, issuer: settings.issuer, err: (error as Error).message },
            "identity provider discovery failed; sign-in with it is refused until it succeeds (retried on use)",
          );
          throw unavailable(settings, error);
        },
      )
      .finally(() => {
        provider.discovering = null;
      });
    return provider.discovering;
  }

  redirectUrl(id: string, origin: string): string {
    const { settings } = this.provider(id);
    return settings.redirectUrl ?? `${this.deps.externalUrl ?? origin}/auth/oidc/${id}/callback`;
  }

  /**
   * Begins a sign-in: remembers it under its state and returns the provider's authorization URL.
   * `bindingSecret` is the value of the browser's sign-in cookie.
   */
  async begin(id: string, returnTo: string, bindingSecret: string, origin: string): Promise<URL> {
    const provider = this.provider(id);
    const config = await this.configuration(provider);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const pending: PendingSignIn = {
      provider: id,
      verifier,
      nonce,
      returnTo,
      binding: sha256(bindingSecret),
    };
    await this.deps.states.put(sha256(state), JSON.stringify(pending), SIGN_IN_TTL_MS);
    return client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUrl(id, origin),
      scope: provider.settings.scopes.join(" "),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
  }

  /**
   * Completes a sign-in at the callback: checks the state (taken once) against the browser's sign-in cookie,
   * exchanges the code, checks the ID token, finds or creates the person and applies the mapping rules.
   */
  async complete(
    id: string,
    callback: URLSearchParams,
    bindingSecret: string | undefined,
    origin: string,
  ): Promise<SignedInWithProvider> {
    const provider = this.provider(id);
    const state = callback.get("state");
    const json = state ? await this.deps.states.take(sha256(state)) : null;
    const pending = json ? (JSON.parse(json) as PendingSignIn) : null;
    if (!pending || pending.provider !== id)
      throw new GatewayError(
        "session_expired",
        "This sign-in is unknown, already used or expired: start again.",
      );
    if (bindingSecret === undefined || !sameSecret(sha256(bindingSecret), pending.binding))
      throw new GatewayError(
        "csrf_refused",
        "This sign-in was started in another browser: start again here.",
      );
    const error = callback.get("error");
    if (error)
      throw new GatewayError(
        "sign_in_failed",
        `The identity provider refused the sign-in: ${error}${callback.get("error_description") ? ` (${callback.get("error_description")})` : ""}.`,
      );
    const config = await this.configuration(provider);
    const url = new URL(this.redirectUrl(id, origin));
    for (const [name, value] of callback) url.searchParams.append(name, value);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, url, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state as string,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (failure) {
      this.deps.logger.warn(
        { provider: id, err: (failure as Error).message },
        "sign-in with an identity provider failed",
      );
      throw new GatewayError(
        "sign_in_failed",
        `The identity provider's answer was refused: ${(failure as Error).message}.`,
      );
    }
    const claims = tokens.claims() as Record<string, unknown> & { sub: string };
    const { groupsClaim } = provider.settings;
    let profile: Record<string, unknown> = claims;
    if (claims[groupsClaim] === undefined || claims.email === undefined) {
      try {
        // The ID token's claims win; userinfo fills in what it lacks (groups, often; e-mail, sometimes).
        profile = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      } catch (failure) {
        this.deps.logger.warn(
          { provider: id, err: (failure as Error).message },
          "userinfo could not be read",
        );
      }
    }
    return {
      user: await this.person(provider, claims.sub, profile),
      provider: id,
      returnTo: pending.returnTo,
    };
  }

  /** The person a provider's subject is: found, linked by verified e-mail, or created; mapping applied. */
  private async person(
    provider: Provider,
    subject: string,
    profile: Record<string, unknown>,
  ): Promise<UserRecord> {
    const { settings } = provider;
    const email = typeof profile.email === "string" ? profile.email.trim().toLowerCase() : null;
    const emailVerified =
      email !== null && (profile.email_verified === true || settings.trustUnverifiedEmail);
    const name = typeof profile.name === "string" && profile.name.trim() !== "" ? profile.name.trim() : email;
    const method = { via: "oidc" as const, provider: settings.id };
    const { users, userStore } = this.deps;
    let user = await userStore.bySubject(settings.id, subject);
    if (!user) {
      if (email === null)
        throw new GatewayError(
          "sign_in_failed",
          `The identity provider ${settings.name} gave no e-mail: add the email scope (or claim).`,
        );
      const existing = await users.byEmail(email);
      if (existing && !emailVerified)
        throw new GatewayError(
          "sign_in_failed",
          `A user with the e-mail ${email} exists, and ${settings.name} does not say the e-mail is verified: ask an operator.`,
        );
      user = existing ?? (await users.create({ email, name }, { self: method }));
      await userStore.linkSubject(settings.id, subject, user.id);
    }
    if (user.status === "disabled") throw new GatewayError("user_disabled");
    const actor: Actor = { kind: "user", userId: user.id, name: user.name, ...method };
    const mapped = mapIdentity(settings.rules, {
      groups: groupsOf(profile[settings.groupsClaim]),
      email,
      emailVerified,
    });
    const missing = await users.applyProviderGrants(user, oidcSource(settings.id), mapped, actor);
    if (missing.length > 0)
      this.deps.logger.warn(
        { provider: settings.id, accounts: missing },
        "a mapping rule names accounts that do not exist; create them or fix the rules",
      );
    return user;
  }
}

function unavailable(settings: ProviderSettings, cause?: unknown): GatewayError {
  return new GatewayError(
    "identity_provider_unavailable",
    `The identity provider ${settings.name} (${settings.issuer}) cannot be reached right now; retry shortly.`,
    { cause },
  );
}
