// The identity providers' client secrets, read at start-up so that a missing one fails the start before
// anything listens. Apart from oidc.ts so that reading them does not load openid-client: a gateway whose
// admin API is off loads none of the sign-in (gateway.ts).

import { readFileSync } from "node:fs";
import { GatewayError } from "../core/errors.js";
import type { ProviderSettings } from "./settings.js";

/** Every provider's client secret by provider id, read at start-up (a missing one fails the start). */
export function providerSecrets(
  providers: readonly ProviderSettings[],
  env: Readonly<Record<string, string | undefined>>,
): Map<string, string | null> {
  return new Map(providers.map((provider) => [provider.id, clientSecret(provider, env)]));
}

/** A provider's client secret from its environment variable or file; null: none (a public client). */
function clientSecret(
  provider: ProviderSettings,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (provider.clientSecretEnv) {
    const value = env[provider.clientSecretEnv];
    if (!value)
      throw new GatewayError(
        "invalid_request",
        `signIn.providers ${provider.id}: the environment variable ${provider.clientSecretEnv} (clientSecretEnv) is not set`,
      );
    return value;
  }
  if (provider.clientSecretFile) {
    try {
      return readFileSync(provider.clientSecretFile, "utf8").trim();
    } catch (error) {
      throw new GatewayError(
        "invalid_request",
        `signIn.providers ${provider.id}: cannot read clientSecretFile ${provider.clientSecretFile}: ${(error as Error).message}`,
      );
    }
  }
  return null;
}
