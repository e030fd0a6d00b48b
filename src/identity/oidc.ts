// Signing in with OpenID Connect providers, through openid-client (a certified relying party): the
// authorization code flow with PKCE (S256), state and nonce. The state, the PKCE verifier and the nonce are
// kept in Redis under the state's hash (ten minutes, taken once) and bound to the browser that started the
// sign-in by a cookie of its own. At the callback the ID token is checked by openid-client; the groups come
// from its groups claim, or from userinfo when the ID token lacks it; the person is then found, linked or
// created by oidc-person.ts. The same provider is asked again between sign-ins (refreshed with its refresh
// token, or asked for userinfo with its access token) by provider-check.ts, through `recheck` here.
//
// Discovery happens in the background at start-up and again on use while it fails (at most every 30
// seconds): a provider that cannot be reached never stops the gateway; signing in with it answers
// identity_provider_unavailable until it can.

import * as client from "openid-client";
import type { Logger } from "pino";
import { GatewayError } from "../core/errors.js";
import type { IdentityEvents, OutcomeOf } from "../core/identity-events.js";
import type { OneTimeStore } from "../store/one-time-store.js";
import type { UserRecord } from "../store/user-store.js";
import type { ProviderPeople } from "./oidc-person.js";
import { sameSecret, sha256 } from "./secrets.js";
import type { ProviderSettings } from "./settings.js";
import { TokenCipher } from "./token-cipher.js";

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
  /** Seals the tokens kept for re-checks; null for a public client, whose tokens are not kept. */
  cipher: TokenCipher | null;
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
  /** Linking this provider to a signed-in person: who, and the hash of the session that asked. */
  link?: { userId: string; session: string };
}

/** The provider's tokens of a person, as the provider gave them (never logged, sealed before stored). */
export interface ProviderTokens {
  refresh: string | null;
  access: string | null;
  /** When the access token expires (ms), if the provider said. */
  accessExpiresAt: number | null;
}

/** What a provider says of a person it has just vouched for. */
export interface VerifiedIdentity {
  provider: ProviderSettings;
  subject: string;
  /** The ID token's claims, filled in from userinfo where they lack the e-mail or the groups. */
  profile: Record<string, unknown>;
  tokens: ProviderTokens;
}

/** What asking a provider again about a person came to. */
export type Recheck =
  | { kind: "confirmed"; profile: Record<string, unknown>; tokens: ProviderTokens }
  | { kind: "refused"; reason: string }
  | { kind: "unreachable"; reason: string };

export interface OidcDeps {
  states: OneTimeStore;
  people: ProviderPeople;
  /** The dashboard's origin, for the default redirect URLs (null: the request's). */
  externalUrl: string | null;
  logger: Logger;
  /** Client secrets by provider id (providerSecrets). */
  secrets: ReadonlyMap<string, string | null>;
  events: IdentityEvents;
  now: () => number;
}

export interface SignedInWithProvider {
  user: UserRecord;
  provider: string;
  returnTo: string;
  /** The sign-in linked the provider to the person who asked for it (from My account). */
  linked: boolean;
}

export class OidcProviders {
  private readonly providers = new Map<string, Provider>();

  constructor(
    providers: readonly ProviderSettings[],
    private readonly deps: OidcDeps,
  ) {
    for (const settings of providers) {
      const secret = deps.secrets.get(settings.id) ?? null;
      this.providers.set(settings.id, {
        settings,
        secret,
        cipher: secret === null ? null : new TokenCipher(secret, settings.id),
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

  /** The provider's settings; 404 provider_not_found for an id not configured. */
  settings(id: string): ProviderSettings {
    return this.provider(id).settings;
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
   * `bindingSecret` is the value of the browser's sign-in cookie; `link`, a signed-in person linking this
   * provider to themselves.
   */
  async begin(
    id: string,
    returnTo: string,
    bindingSecret: string,
    origin: string,
    link?: PendingSignIn["link"],
  ): Promise<URL> {
    const provider = this.provider(id);
    let config: client.Configuration;
    try {
      config = await this.configuration(provider);
    } catch (error) {
      this.deps.events.publish("sign_in.oidc", "provider_unavailable", { provider: id });
      throw error;
    }
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const pending: PendingSignIn = {
      provider: id,
      verifier,
      nonce,
      returnTo,
      binding: sha256(bindingSecret),
      ...(link && { link }),
    };
    await this.deps.states.put(sha256(state), JSON.stringify(pending), SIGN_IN_TTL_MS);
    return client.buildAuthorizationUrl(config, {
      ...provider.settings.authParams,
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
   * exchanges the code, checks the ID token, then finds, links or creates the person and applies the
   * mapping rules. `sessionHash` is the hash of the session the browser comes back with, if any: a link
   * asked for by one session is completed only in that session.
   */
  async complete(
    id: string,
    callback: URLSearchParams,
    bindingSecret: string | undefined,
    origin: string,
    sessionHash: string | null,
  ): Promise<SignedInWithProvider> {
    const provider = this.provider(id);
    const refuse = (outcome: OutcomeOf<"sign_in.oidc">, error: GatewayError, detail?: string) => {
      this.deps.events.publish("sign_in.oidc", outcome, { provider: id, ...(detail && { detail }) });
      return error;
    };
    const state = callback.get("state");
    const json = state ? await this.deps.states.take(sha256(state)) : null;
    const pending = json ? (JSON.parse(json) as PendingSignIn) : null;
    if (!pending || pending.provider !== id)
      throw refuse(
        "state_mismatch",
        new GatewayError("session_expired", "This sign-in is unknown, already used or expired: start again."),
      );
    if (bindingSecret === undefined || !sameSecret(sha256(bindingSecret), pending.binding))
      throw refuse(
        "browser_mismatch",
        new GatewayError("csrf_refused", "This sign-in was started in another browser: start again here."),
      );
    const error = callback.get("error");
    if (error)
      throw refuse(
        "provider_error",
        new GatewayError(
          "sign_in_failed",
          `The identity provider refused the sign-in: ${error}${callback.get("error_description") ? ` (${callback.get("error_description")})` : ""}.`,
        ),
        error,
      );
    if (pending.link && pending.link.session !== sessionHash)
      throw refuse(
        "browser_mismatch",
        new GatewayError(
          "session_expired",
          "The session that asked for this link has ended: sign in and try again.",
        ),
      );
    let config: client.Configuration;
    try {
      config = await this.configuration(provider);
    } catch (failure) {
      throw refuse("provider_unavailable", failure as GatewayError);
    }
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
      const message = innermost(failure).message;
      const nonce = causes(failure).some(
        (cause) => (cause as { cause?: { claim?: unknown } }).cause?.claim === "nonce",
      );
      throw refuse(
        nonce ? "nonce_mismatch" : "provider_error",
        new GatewayError("sign_in_failed", `The identity provider's answer was refused: ${message}.`),
        message,
      );
    }
    const claims = tokens.claims() as Record<string, unknown> & { sub: string };
    const profile = await this.profileOf(provider, config, claims, tokens.access_token);
    const identity: VerifiedIdentity = {
      provider: provider.settings,
      subject: claims.sub,
      profile,
      tokens: this.tokensOf(tokens),
    };
    const { user, linked } = await this.deps.people.signIn(identity, pending.link?.userId ?? null);
    return { user, provider: id, returnTo: pending.returnTo, linked };
  }

  /** The claims, filled in from userinfo where they lack the groups or the e-mail. */
  private async profileOf(
    provider: Provider,
    config: client.Configuration,
    claims: Record<string, unknown> & { sub: string },
    accessToken: string,
  ): Promise<Record<string, unknown>> {
    if (claims[provider.settings.groupsClaim] !== undefined && claims.email !== undefined) return claims;
    try {
      // The ID token's claims win; userinfo fills in what it lacks (groups, often; e-mail, sometimes).
      return { ...(await client.fetchUserInfo(config, accessToken, claims.sub)), ...claims };
    } catch (failure) {
      this.deps.logger.warn(
        { provider: provider.settings.id, err: (failure as Error).message },
        "userinfo could not be read",
      );
      return claims;
    }
  }

  private tokensOf(tokens: client.TokenEndpointResponse): ProviderTokens {
    return {
      refresh: tokens.refresh_token ?? null,
      access: tokens.access_token ?? null,
      accessExpiresAt:
        typeof tokens.expires_in === "number" ? this.deps.now() + tokens.expires_in * 1000 : null,
    };
  }

  /** The provider's cipher for the tokens kept for re-checks, or null (a public client keeps none). */
  cipher(id: string): TokenCipher | null {
    return this.provider(id).cipher;
  }

  /**
   * Asks the provider again about a person it vouched for: with the refresh token if it gave one (a new ID
   * token and userinfo), else userinfo with the access token while it lasts. A refusal (invalid_grant,
   * invalid_token, a token expired with nothing to renew it) means the provider no longer vouches for them;
   * anything else (no answer, 5xx, a misconfigured client) only that it could not be asked.
   */
  async recheck(id: string, subject: string, tokens: ProviderTokens): Promise<Recheck> {
    const provider = this.provider(id);
    let config: client.Configuration;
    try {
      config = await this.configuration(provider);
    } catch (error) {
      return { kind: "unreachable", reason: (error as Error).message };
    }
    try {
      if (tokens.refresh !== null) {
        const renewed = await client.refreshTokenGrant(config, tokens.refresh);
        const claims = (renewed.claims() ?? { sub: subject }) as Record<string, unknown> & { sub: string };
        if (claims.sub !== subject)
          return { kind: "refused", reason: "the refreshed ID token names someone else" };
        const next = this.tokensOf(renewed);
        const userinfo = await client.fetchUserInfo(config, renewed.access_token, subject);
        return {
          kind: "confirmed",
          profile: { ...userinfo, ...claims },
          tokens: { ...next, refresh: next.refresh ?? tokens.refresh },
        };
      }
      if (
        tokens.access === null ||
        (tokens.accessExpiresAt !== null && this.deps.now() >= tokens.accessExpiresAt)
      )
        return { kind: "refused", reason: "the access token expired and the provider gave no refresh token" };
      const userinfo = await client.fetchUserInfo(config, tokens.access, subject);
      return { kind: "confirmed", profile: { ...userinfo }, tokens };
    } catch (failure) {
      return refusedOrUnreachable(failure);
    }
  }
}

/** An error and the errors it was caused by, outermost first (openid-client wraps oauth4webapi's). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at instanceof Error && chain.length < 5; at = at.cause) chain.push(at);
  return chain;
}

/** The innermost error of a chain, whose message says most. */
function innermost(error: unknown): Error {
  return (causes(error).at(-1) as Error | undefined) ?? new Error(String(error));
}

/** Whether the provider refused the tokens (it no longer vouches for the person) or could not be asked. */
function refusedOrUnreachable(failure: unknown): Recheck {
  const reason = (failure as Error).message;
  if (
    failure instanceof client.ResponseBodyError &&
    ["invalid_grant", "invalid_token"].includes(failure.error)
  )
    return { kind: "refused", reason: failure.error };
  if (failure instanceof client.WWWAuthenticateChallengeError) {
    const refused = failure.cause.some((challenge) => challenge.parameters.error === "invalid_token");
    if (refused || failure.status === 401) return { kind: "refused", reason: "invalid_token" };
  }
  return { kind: "unreachable", reason };
}

function unavailable(settings: ProviderSettings, cause?: unknown): GatewayError {
  return new GatewayError(
    "identity_provider_unavailable",
    `The identity provider ${settings.name} (${settings.issuer}) cannot be reached right now; retry shortly.`,
    { cause },
  );
}
