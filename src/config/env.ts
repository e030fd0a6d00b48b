// Environment variables that override single settings. Secrets (tokens, passwords, upstream key) are best
// passed this way so that they stay out of files and ConfigMaps.

export interface EnvSetting {
  variable: string;
  path: readonly string[];
  kind: "string" | "number" | "boolean";
  /**
   * A section the configuration must already have for the variable to mean anything: a Sentinel password
   * without sentinels would otherwise fail start-up on `redis.sentinel.sentinels`, never naming the variable.
   */
  needsSection?: readonly string[];
}

export const ENV_SETTINGS: readonly EnvSetting[] = [
  { variable: "TUNNEL_HOST", path: ["listen", "host"], kind: "string" },
  { variable: "TUNNEL_PORT", path: ["listen", "port"], kind: "number" },
  { variable: "TUNNEL_UPSTREAM_URL", path: ["upstream", "url"], kind: "string" },
  { variable: "TUNNEL_UPSTREAM_API_KEY", path: ["upstream", "apiKey"], kind: "string" },
  { variable: "TUNNEL_UPSTREAM_MAX_IN_FLIGHT", path: ["upstream", "maxInFlight"], kind: "number" },
  { variable: "TUNNEL_REDIS_URL", path: ["redis", "url"], kind: "string" },
  { variable: "TUNNEL_REDIS_PREFIX", path: ["redis", "prefix"], kind: "string" },
  { variable: "TUNNEL_REDIS_USERNAME", path: ["redis", "username"], kind: "string" },
  { variable: "TUNNEL_REDIS_PASSWORD", path: ["redis", "password"], kind: "string" },
  {
    variable: "TUNNEL_REDIS_SENTINEL_PASSWORD",
    path: ["redis", "sentinel", "password"],
    kind: "string",
    needsSection: ["redis", "sentinel"],
  },
  { variable: "TUNNEL_METRICS_HOST", path: ["metrics", "host"], kind: "string" },
  { variable: "TUNNEL_METRICS_PORT", path: ["metrics", "port"], kind: "number" },
  { variable: "TUNNEL_METRICS_TOKEN", path: ["metrics", "token"], kind: "string" },
  { variable: "TUNNEL_ADMIN_HOST", path: ["admin", "host"], kind: "string" },
  { variable: "TUNNEL_ADMIN_PORT", path: ["admin", "port"], kind: "number" },
  { variable: "TUNNEL_ADMIN_TOKEN", path: ["admin", "token"], kind: "string" },
  { variable: "TUNNEL_ADMIN_EXTERNAL_URL", path: ["admin", "externalUrl"], kind: "string" },
  { variable: "TUNNEL_SIGN_IN_LOCAL", path: ["signIn", "local", "enabled"], kind: "boolean" },
  { variable: "TUNNEL_TLS_CERT_FILE", path: ["tls", "certFile"], kind: "string" },
  { variable: "TUNNEL_TLS_KEY_FILE", path: ["tls", "keyFile"], kind: "string" },
  { variable: "TUNNEL_REQUIRE_HTTPS", path: ["security", "requireHttps"], kind: "boolean" },
  { variable: "TUNNEL_DRAIN_SECONDS", path: ["shutdown", "drainSeconds"], kind: "number" },
  { variable: "TUNNEL_BILLING_TIMEZONE", path: ["billing", "timezone"], kind: "string" },
  { variable: "TUNNEL_LOG_LEVEL", path: ["logging", "level"], kind: "string" },
];

/** The variable that names the configuration file (the CLI's --config wins over it). */
export const CONFIG_FILE_VARIABLE = "TUNNEL_CONFIG";

/** Turns a variable's text into the type its setting expects; text that does not fit is left for zod to name. */
export function envValue(setting: EnvSetting, text: string): unknown {
  if (setting.kind === "number") {
    const trimmed = text.trim();
    return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
  }
  if (setting.kind === "boolean") {
    if (/^(true|1|yes|on)$/i.test(text.trim())) return true;
    if (/^(false|0|no|off)$/i.test(text.trim())) return false;
    return text;
  }
  return text;
}
