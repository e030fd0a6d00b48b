// Where events go: the operator's webhooks (configuration: every account's events of the types they list) and
// each account's own webhook (its events). An endpoint is known by an id that stays the same across restarts —
// `account`, or `op_` and a hash of the operator's URL — so that a retry finds the endpoint its first attempt
// went to, or finds it gone.

import { createHash } from "node:crypto";
import { ConfigError } from "../config/config-error.js";
import type { Config } from "../config/schema.js";
import type { AccountWebhook } from "../store/accounts/alert-settings-store.js";
import { MIN_SECRET_LENGTH } from "./signing.js";

export interface Endpoint {
  id: string;
  kind: "operator" | "account";
  url: string;
  secret: string;
  /** Event types it receives; null for every type. */
  events: readonly string[] | null;
}

export const ACCOUNT_ENDPOINT = "account";

/**
 * The operator's webhooks with their secrets read from the environment variables they name. A variable that
 * is unset or too short is a configuration error naming the setting and the variable, never its value.
 */
export function operatorEndpoints(
  alerts: Config["alerts"],
  env: Readonly<Record<string, string | undefined>>,
): Endpoint[] {
  return alerts.webhooks.map((webhook, i) => {
    const secret = env[webhook.secretEnv] ?? "";
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError(
        `invalid configuration: alerts.webhooks.${i}.secretEnv: the environment variable ${webhook.secretEnv} ` +
          `must hold the webhook's signing secret, at least ${MIN_SECRET_LENGTH} characters; ` +
          (secret === "" ? "it is not set" : "it is shorter"),
      );
    }
    return {
      id: operatorEndpointId(webhook.url),
      kind: "operator" as const,
      url: webhook.url,
      secret,
      events: webhook.events ?? null,
    };
  });
}

export function operatorEndpointId(url: string): string {
  return `op_${createHash("sha256").update(url).digest("hex").slice(0, 12)}`;
}

export function accountEndpoint(webhook: AccountWebhook): Endpoint {
  return {
    id: ACCOUNT_ENDPOINT,
    kind: "account",
    url: webhook.url,
    secret: webhook.secret,
    events: webhook.events,
  };
}

export function receives(endpoint: Pick<Endpoint, "events">, type: string): boolean {
  return endpoint.events === null || endpoint.events.includes(type);
}
