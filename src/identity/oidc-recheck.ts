// Asking a provider again about a person it vouched for at sign-in (provider-check.ts runs it on a schedule):
// with the refresh token if it gave one — a new ID token, and userinfo — else userinfo with the access token
// while it lasts. What comes of it is one of three: confirmed (with what the provider says now), refused (it
// no longer vouches for the person: invalid_grant, invalid_token, or nothing left to ask with), or unreachable
// (no answer, 5xx, a client the provider rejects: nothing is concluded about the person).

import * as client from "openid-client";

/** The provider's tokens of a person, as the provider gave them (never logged, sealed before stored). */
export interface ProviderTokens {
  refresh: string | null;
  access: string | null;
  /** When the access token expires (ms), if the provider said. */
  accessExpiresAt: number | null;
}

/** What asking a provider again about a person came to. */
export type Recheck =
  | { kind: "confirmed"; profile: Record<string, unknown>; tokens: ProviderTokens }
  | { kind: "refused"; reason: string }
  | { kind: "unreachable"; reason: string };

/** The tokens of a token endpoint's answer, the access token's expiry made absolute. */
export function tokensOf(tokens: client.TokenEndpointResponse, now: number): ProviderTokens {
  return {
    refresh: tokens.refresh_token ?? null,
    access: tokens.access_token ?? null,
    accessExpiresAt: typeof tokens.expires_in === "number" ? now + tokens.expires_in * 1000 : null,
  };
}

export async function recheck(
  config: client.Configuration,
  subject: string,
  tokens: ProviderTokens,
  now: () => number,
): Promise<Recheck> {
  try {
    if (tokens.refresh !== null) {
      const renewed = await client.refreshTokenGrant(config, tokens.refresh);
      const claims = (renewed.claims() ?? { sub: subject }) as Record<string, unknown> & { sub: string };
      if (claims.sub !== subject)
        return { kind: "refused", reason: "the refreshed ID token names someone else" };
      const next = tokensOf(renewed, now());
      const userinfo = await client.fetchUserInfo(config, renewed.access_token, subject);
      return {
        kind: "confirmed",
        profile: { ...userinfo, ...claims },
        // A provider that does not rotate refresh tokens answers without one: the one it gave stays good.
        tokens: { ...next, refresh: next.refresh ?? tokens.refresh },
      };
    }
    if (tokens.access === null || (tokens.accessExpiresAt !== null && now() >= tokens.accessExpiresAt))
      return { kind: "refused", reason: "the access token expired and the provider gave no refresh token" };
    const userinfo = await client.fetchUserInfo(config, tokens.access, subject);
    return { kind: "confirmed", profile: { ...userinfo }, tokens };
  } catch (failure) {
    return refusedOrUnreachable(failure);
  }
}

/** Whether the provider refused the tokens (it no longer vouches for the person) or could not be asked. */
function refusedOrUnreachable(failure: unknown): Recheck {
  if (
    failure instanceof client.ResponseBodyError &&
    ["invalid_grant", "invalid_token"].includes(failure.error)
  )
    return { kind: "refused", reason: failure.error };
  if (failure instanceof client.WWWAuthenticateChallengeError) {
    const refused = failure.cause.some((challenge) => challenge.parameters.error === "invalid_token");
    if (refused || failure.status === 401) return { kind: "refused", reason: "invalid_token" };
  }
  return { kind: "unreachable", reason: (failure as Error).message };
}
