// Signing in with OpenID Connect providers, through openid-client (a certified relying party): the
// authorization code flow with PKCE (S256), state and nonce. The state, the PKCE verifier and the nonce are
// kept in Redis under the state's hash (ten minutes, taken once) and bound to the browser that started the
// sign-in by a cookie of its own. At the callback the ID token is checked by openid-client; the groups come
// from its groups claim, or from userinfo when the ID token lacks it; the person is then found, linked or
// created by oidc-person.ts. The providers' discovery is provider-configs.ts's; asking a provider again
// between sign-ins, oidc-recheck.ts's, which provider-check.ts runs through `recheck` here.

import * as client from "openid-client";
import type { Logger } from "pino";
import type { IdentityEvents } from "../core/channels.js";
import { GatewayError } from "../core/errors.js";
import type { OutcomeOf } from "../core/identity-events.js";
import type { OneTimeStore } from "../store/people/one-time-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { ProviderPeople, VerifiedIdentity } from "./oidc-person.js";
import { type ProviderTokens, type Recheck, recheck, tokensOf } from "./oidc-recheck.js";
import { ProviderConfigs } from "./provider-configs.js";
import { sameSecret, sha256 } from "./secrets.js";
import type { ProviderSettings } from "./settings.js";
import type { TokenCipher } from "./token-cipher.js";

export type { ProviderTokens, Recheck } from "./oidc-recheck.js";
export { providerSecrets } from "./provider-secrets.js";

/** How long a sign-in may take between leaving for the provider and coming back. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

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
  private readonly configs: ProviderConfigs;

  constructor(
    providers: readonly ProviderSettings[],
    private readonly deps: OidcDeps,
  ) {
    this.configs = new ProviderConfigs(providers, deps.secrets, deps.logger, deps.now);
  }

  /** Starts discovering every provider in the background; failures are logged, and retried on use. */
  warmUp(): void {
    this.configs.warmUp();
  }

  /** The provider's settings; 404 provider_not_found for an id not configured. */
  settings(id: string): ProviderSettings {
    return this.configs.settings(id);
  }

  /** The provider's cipher for the tokens kept for re-checks, or null (a public client keeps none). */
  cipher(id: string): TokenCipher | null {
    return this.configs.cipher(id);
  }

  redirectUrl(id: string, origin: string): string {
    const settings = this.configs.settings(id);
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
    const settings = this.configs.settings(id);
    let config: client.Configuration;
    try {
      config = await this.configs.configuration(id);
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
      ...settings.authParams,
      redirect_uri: this.redirectUrl(id, origin),
      scope: settings.scopes.join(" "),
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
    const settings = this.configs.settings(id);
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
      config = await this.configs.configuration(id);
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
    const profile = await this.profileOf(settings, config, claims, tokens.access_token);
    const identity: VerifiedIdentity = {
      provider: settings,
      subject: claims.sub,
      profile,
      tokens: tokensOf(tokens, this.deps.now()),
    };
    const { user, linked } = await this.deps.people.signIn(identity, pending.link?.userId ?? null);
    return { user, provider: id, returnTo: pending.returnTo, linked };
  }

  /** The claims, filled in from userinfo where they lack the groups or the e-mail. */
  private async profileOf(
    provider: ProviderSettings,
    config: client.Configuration,
    claims: Record<string, unknown> & { sub: string },
    accessToken: string,
  ): Promise<Record<string, unknown>> {
    if (claims[provider.groupsClaim] !== undefined && claims.email !== undefined) return claims;
    try {
      // The ID token's claims win; userinfo fills in what it lacks (groups, often; e-mail, sometimes).
      return { ...(await client.fetchUserInfo(config, accessToken, claims.sub)), ...claims };
    } catch (failure) {
      this.deps.logger.warn(
        { provider: provider.id, err: (failure as Error).message },
        "userinfo could not be read",
      );
      return claims;
    }
  }

  /**
   * Asks the provider again about a person it vouched for (oidc-recheck.ts): confirmed with what it says now,
   * refused, or unreachable.
   */
  async recheck(id: string, subject: string, tokens: ProviderTokens): Promise<Recheck> {
    let config: client.Configuration;
    try {
      config = await this.configs.configuration(id);
    } catch (error) {
      return { kind: "unreachable", reason: (error as Error).message };
    }
    return recheck(config, subject, tokens, this.deps.now);
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
