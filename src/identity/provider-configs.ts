// The configured identity providers as openid-client knows them: each provider's settings, its client secret,
// the cipher its kept tokens are sealed with, and its discovered configuration. Discovery happens in the
// background at start-up and again on use while it fails (at most every 30 seconds): a provider that cannot be
// reached never stops the gateway; signing in with it answers identity_provider_unavailable until it can.

import * as client from "openid-client";
import type { Logger } from "pino";
import { GatewayError } from "../core/errors.js";
import type { ProviderSettings } from "./settings.js";
import { TokenCipher } from "./token-cipher.js";

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

export class ProviderConfigs {
  private readonly providers = new Map<string, Provider>();

  constructor(
    providers: readonly ProviderSettings[],
    secrets: ReadonlyMap<string, string | null>,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    for (const settings of providers) {
      const secret = secrets.get(settings.id) ?? null;
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
    for (const id of this.providers.keys()) void this.configuration(id).catch(() => {});
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

  /** The provider's cipher for the tokens kept for re-checks, or null (a public client keeps none). */
  cipher(id: string): TokenCipher | null {
    return this.provider(id).cipher;
  }

  /** The provider's discovered configuration; identity_provider_unavailable while it cannot be had. */
  configuration(id: string): Promise<client.Configuration> {
    const provider = this.provider(id);
    if (provider.config) return Promise.resolve(provider.config);
    if (provider.discovering) return provider.discovering;
    if (provider.failedAt !== null && this.now() - provider.failedAt < RETRY_DISCOVERY_MS)
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
          this.logger.info(
            { provider: settings.id, issuer: settings.issuer },
            "identity provider discovered",
          );
          return config;
        },
        (error: unknown) => {
          provider.failedAt = this.now();
          this.logger.warn(
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
}

function unavailable(settings: ProviderSettings, cause?: unknown): GatewayError {
  return new GatewayError(
    "identity_provider_unavailable",
    `The identity provider ${settings.name} (${settings.issuer}) cannot be reached right now; retry shortly.`,
    { cause },
  );
}
