// The configuration schema: every setting, its type, its default. `config/default.yaml` documents the same
// settings with a comment each, and a test keeps the two equal. Unknown keys are refused so that a misspelled
// setting fails at start-up instead of being silently ignored.

import { z } from "zod";
import { parseCidr } from "../core/cidr.js";
import { ENDPOINT_CLASSES, isEndpointPattern } from "../core/endpoint-classes.js";
import { isGatewayError } from "../core/errors.js";
import { EVENT_TYPES } from "../core/event-types.js";
import { parseRubles } from "../core/money.js";
import { isValidTimeZone } from "../core/periods.js";
import { ACCOUNT_ROLES, OPERATOR_ROLES } from "../core/roles.js";
import { MAX_THRESHOLD, MAX_THRESHOLDS, MIN_THRESHOLD } from "../core/thresholds.js";
import { webhookUrlProblem } from "../core/webhook-url.js";

/** A ruble amount in the file (number or decimal string), held as integer micro-rubles after parsing. */
const rubles = z.union([z.number(), z.string()]).transform((value, ctx) => {
  try {
    return parseRubles(value, "amount");
  } catch (error) {
    ctx.issues.push({
      code: "custom",
      input: value,
      message: isGatewayError(error) ? error.message.replace(/^amount /, "") : String(error),
    });
    return z.NEVER;
  }
});

const port = z.number().int().min(0).max(65535);
const secret = z.string().min(16, "must be at least 16 characters");
const file = z.string().min(1);
/** host:port of a Redis node or sentinel. */
const hostPort = z.string().regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, "must be host:port");

/** An IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8 (a bare address means a single host). */
const cidr = z
  .string()
  .refine((value) => parseCidr(value) !== null, { error: "must be a CIDR such as 10.0.0.0/8" });
const host = z.string().min(1);
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
/**
 * The model server's URL. Credentials written into it would be printed in the start-up log line and never
 * sent (http-proxy-3 ignores them): the upstream's key belongs in upstream.apiKey.
 */
const upstreamUrl = httpUrl
  .refine((url) => !/^https?:\/\/[^/?#]*@/i.test(url), {
    error:
      "must not contain credentials; put the model server's key in upstream.apiKey (TUNNEL_UPSTREAM_API_KEY)",
  })
  // OpenAI clients are configured with a base URL ending in /v1; copied here, every request would 404. (zod
  // runs this even after the URL check failed: a text that is no URL is that check's to report.)
  .refine((url) => !URL.canParse(url) || !/\/v1\/?$/i.test(new URL(url).pathname), {
    error:
      "must not end in /v1: the gateway forwards the client's path as it is, so a request for " +
      "/v1/chat/completions would go to …/v1/v1/chat/completions; give the model server's root, " +
      "such as http://127.0.0.1:8000",
  });

/**
 * The database a redis:// URL selects: the number in its path (ioredis sends SELECT with it), 0 without one,
 * or null when the path is not a database number.
 */
export function redisDatabase(url: string): number | null {
  const path = URL.canParse(url) ? new URL(url).pathname : "";
  const match = /^\/?(\d{1,5})?$/.exec(path);
  return match ? Number(match[1] ?? 0) : null;
}

/** A number of tokens: a positive integer that every model server reads as a 32-bit integer. */
const tokens = z.number().int().positive().max(2_147_483_647);

const price = z.strictObject({
  /** Rubles per 1 million prompt tokens. */
  input: rubles,
  /** Rubles per 1 million completion tokens (reasoning tokens are completion tokens). */
  output: rubles,
  /** Rubles per 1 million prompt tokens the model server served from its prefix cache; the input price if unset. */
  cachedInput: rubles.optional(),
  /** Rubles per 1 million prompt tokens a server reports writing to its cache (Anthropic-style); the input price if unset. */
  cacheWrite: rubles.optional(),
  /** Rubles charged once for every request the model server took; none if unset. */
  perRequest: rubles.optional(),
  /** Output tokens assumed for the worst case when a request sets no max_tokens. */
  maxOutputTokens: tokens.optional(),
  /** The model's context length: output caps above it are refused, prompt reports above it not believed. */
  contextTokens: tokens.optional(),
  /** Prompt tokens one image, audio or video part of a prompt may take, for the worst case. */
  maxImageTokens: tokens.optional(),
  maxAudioTokens: tokens.optional(),
  maxVideoTokens: tokens.optional(),
});
/** Each field has its default, so that a file may change one of them (say the input price) alone. */
const defaultPrice = price.extend({
  input: rubles.prefault(100),
  output: rubles.prefault(300),
  maxOutputTokens: tokens.default(4096),
  maxImageTokens: tokens.default(4096),
  maxAudioTokens: tokens.default(4096),
  maxVideoTokens: tokens.default(16_384),
});

/** An operator's webhook: where every account's events of the listed types go, signed with a secret from env. */
const operatorWebhook = z.strictObject({
  url: z.string(),
  /** The environment variable holding the signing secret (never the secret itself: files are not secret). */
  secretEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable"),
  /** Event types sent to it; every type when left out. */
  events: z.array(z.enum(EVENT_TYPES)).min(1).optional(),
});

const alerts = z
  .strictObject({
    /** Budget thresholds (percent) of keys that have none of their own. */
    thresholds: z
      .array(z.number().int().min(MIN_THRESHOLD).max(MAX_THRESHOLD))
      .max(MAX_THRESHOLDS)
      .default([80, 95, 100]),
    webhooks: z.array(operatorWebhook).default([]),
    allowHttp: z.boolean().default(false),
    allowPrivateNetworks: z.boolean().default(false),
    eventRetentionDays: z.number().int().min(2).default(7),
    delivery: z
      .strictObject({
        timeoutMs: z.number().int().positive().max(60_000).default(10_000),
        firstRetrySeconds: z.number().positive().default(30),
        maxRetrySeconds: z.number().positive().default(3600),
        giveUpHours: z.number().positive().default(24),
        pollIntervalMs: z.number().int().min(10).default(1000),
        sweepSeconds: z.number().positive().default(60),
      })
      .prefault({}),
  })
  .superRefine((section, ctx) => {
    const urls = new Set<string>();
    section.webhooks.forEach((webhook, i) => {
      const problem = webhookUrlProblem(webhook.url, section.allowHttp);
      if (problem) ctx.addIssue({ code: "custom", path: ["webhooks", i, "url"], message: problem });
      if (urls.has(webhook.url))
        ctx.addIssue({ code: "custom", path: ["webhooks", i, "url"], message: "is listed twice" });
      urls.add(webhook.url);
    });
    if (section.eventRetentionDays * 24 <= section.delivery.giveUpHours) {
      ctx.addIssue({
        code: "custom",
        path: ["eventRetentionDays"],
        message: "must be longer than delivery.giveUpHours: events are kept until their deliveries are over",
      });
    }
  })
  .prefault({});

/** The name of an environment variable (never a secret itself: files are not secret). */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable");

/**
 * One mapping rule of a provider: a person in any of `groups`, or whose verified e-mail is in any of
 * `emailDomains`, gets `operator` and/or the `role` in `account`. Every matching rule applies; where several
 * give one account (or an operator role), the highest role wins.
 */
const mappingRule = z
  .strictObject({
    groups: z.array(z.string().min(1)).min(1).optional(),
    emailDomains: z
      .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, "must be a lower-case domain such as example.com"))
      .min(1)
      .optional(),
    operator: z.enum(OPERATOR_ROLES).optional(),
    account: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        "must be an account id: 1 to 64 lowercase letters, digits, '-' and '_'",
      )
      .optional(),
    role: z.enum(ACCOUNT_ROLES).optional(),
  })
  .refine((rule) => rule.groups !== undefined || rule.emailDomains !== undefined, {
    error: "needs groups or emailDomains: what a person must have for the rule to apply",
  })
  .refine((rule) => rule.operator !== undefined || rule.account !== undefined, {
    error: "needs operator, or account with role: what the rule gives",
  })
  .refine((rule) => (rule.account === undefined) === (rule.role === undefined), {
    error: "account and role go together: the role the rule gives in the account",
  });

/** The authorization request's parameters the sign-in flow sets itself (PKCE, state, nonce, …). */
const FLOW_PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
];

/** An OpenID Connect provider people sign in with (docs/sign-in.md). */
const identityProvider = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,31}$/,
        "must be 1 to 32 lowercase letters, digits and '-' (it is in URLs)",
      ),
    name: z.string().min(1),
    issuer: httpUrl,
    clientId: z.string().min(1),
    /** The environment variable holding the client secret; or clientSecretFile; or neither (a public client). */
    clientSecretEnv: envName.optional(),
    clientSecretFile: file.optional(),
    scopes: z.array(z.string().min(1)).default(["openid", "email", "profile"]),
    /** Default: <admin.externalUrl>/auth/oidc/<id>/callback. */
    redirectUrl: httpUrl.optional(),
    groupsClaim: z.string().min(1).default("groups"),
    /** Believe an e-mail the provider does not mark verified (email_verified), for domain rules and linking. */
    trustUnverifiedEmail: z.boolean().default(false),
    rules: z.array(mappingRule).default([]),
    /** E-mail domains the provider speaks for besides its rules' emailDomains (a provider mapping by groups). */
    domains: z
      .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, "must be a lower-case domain such as example.com"))
      .default([]),
    /**
     * Invitations to an e-mail in the provider's domains are accepted only by signing in with it, never by
     * setting a password (docs/sign-in.md, no way around the provider).
     */
    requireForDomains: z.boolean().default(true),
    /**
     * A first sign-in of a person no rule gives a role creates their user (with no role, until someone gives
     * them one); false refuses them (sign_in.oidc no_rule), for a provider that vouches for more people than
     * should have a user here.
     */
    createUnmatched: z.boolean().default(true),
    /**
     * Extra parameters of the authorization request, such as Google's access_type: offline (a refresh token
     * for the re-checks); never those the flow sets itself.
     */
    authParams: z.record(z.string(), z.string()).default({}),
  })
  .superRefine((provider, ctx) => {
    for (const name of Object.keys(provider.authParams))
      if (FLOW_PARAMS.includes(name))
        ctx.addIssue({
          code: "custom",
          path: ["authParams", name],
          message: "is set by the sign-in flow itself and cannot be given",
        });
  })
  .refine((provider) => !(provider.clientSecretEnv && provider.clientSecretFile), {
    error: "give clientSecretEnv or clientSecretFile, not both",
  })
  .refine((provider) => provider.scopes.includes("openid"), {
    error: "scopes must include openid",
    path: ["scopes"],
  });

const signIn = z
  .strictObject({
    local: z
      .strictObject({
        enabled: z.boolean().default(false),
        minPasswordLength: z.number().int().min(8).max(128).default(12),
        passwordLinkHours: z.number().int().min(1).max(720).default(24),
      })
      .prefault({}),
    attempts: z
      .strictObject({
        maxFailures: z.number().int().min(1).default(10),
        windowSeconds: z.number().int().min(1).default(60),
        firstLockSeconds: z.number().int().min(1).default(60),
        longestLockSeconds: z.number().int().min(1).default(3600),
      })
      .prefault({}),
    sessions: z
      .strictObject({
        idleMinutes: z.number().int().min(1).default(30),
        absoluteHours: z.number().int().min(1).default(12),
      })
      .prefault({}),
    invitations: z.strictObject({ ttlDays: z.number().int().min(1).max(90).default(7) }).prefault({}),
    apiTokens: z.strictObject({ maxDays: z.number().int().min(1).default(365) }).prefault({}),
    // Re-checking people signed in with a provider between sign-ins (docs/sign-in.md): 0 turns it off.
    providerCheck: z
      .strictObject({
        intervalMinutes: z.number().int().min(0).max(1440).default(5),
        graceMinutes: z.number().int().min(1).max(10_080).default(60),
      })
      .prefault({}),
    providers: z.array(identityProvider).default([]),
    /** SCIM provisioning (docs/scim.md): the provider whose mapping rules SCIM group memberships go through. */
    scim: z.strictObject({ provider: z.string().min(1).optional() }).prefault({}),
  })
  .superRefine((section, ctx) => {
    const ids = new Set<string>();
    section.providers.forEach((provider, i) => {
      if (ids.has(provider.id))
        ctx.addIssue({
          code: "custom",
          path: ["providers", i, "id"],
          message: "is used by another provider",
        });
      ids.add(provider.id);
    });
    const scimProvider = section.scim.provider;
    if (scimProvider !== undefined && !ids.has(scimProvider))
      ctx.addIssue({
        code: "custom",
        path: ["scim", "provider"],
        message: `names no provider of signIn.providers (${[...ids].join(", ") || "there are none"})`,
      });
  })
  .prefault({});

/**
 * The dashboard's URL as people's browsers reach it (scheme, host and port only: it is served at the root),
 * e.g. https://gateway.example.com behind an ingress.
 */
const externalUrl = httpUrl.refine((url) => !URL.canParse(url) || ["", "/"].includes(new URL(url).pathname), {
  error:
    "must be an origin such as https://gateway.example.com, without a path: the dashboard is served at /",
});

export const configSchema = z.strictObject({
  listen: z
    .strictObject({
      host: host.default("127.0.0.1"),
      port: port.default(8080),
    })
    .prefault({}),
  auth: z
    .strictObject({
      acceptXApiKey: z.boolean().default(true),
    })
    .prefault({}),
  endpoints: z
    .record(
      z.string().refine(isEndpointPattern, {
        error: 'must be a path such as "/v1/my-endpoint", "POST /props" or "/prefix/*"',
      }),
      z.enum(ENDPOINT_CLASSES),
    )
    .default({}),
  upstream: z
    .strictObject({
      url: upstreamUrl.default("http://127.0.0.1:8000"),
      apiKey: z.string().min(1).optional(),
      timeoutMs: z.number().int().positive().default(300_000),
      // Below the idle timeout of the usual model servers (uvicorn under vLLM, Node: 5 s), so that the
      // gateway, not the server, closes an idle pooled connection: a request sent on a connection the
      // server is closing at that instant would fail with 502.
      keepAliveIdleMs: z.number().int().positive().default(4000),
      injectStreamUsage: z.boolean().default(true),
      // Fair sharing (docs/fair-sharing.md): unset, every admitted request is forwarded at once.
      maxInFlight: z.number().int().positive().max(100_000).optional(),
      sharedInFlight: z.boolean().default(false),
      priorityField: z
        .string()
        .regex(
          /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/,
          "must be a field name such as priority, or a dotted path such as nvext.priority",
        )
        .optional(),
      priorityOrder: z.enum(["lowerFirst", "higherFirst"]).default("lowerFirst"),
    })
    .refine((upstream) => !upstream.sharedInFlight || upstream.maxInFlight !== undefined, {
      error: "sharedInFlight needs maxInFlight: the limit the replicas share",
      path: ["sharedInFlight"],
    })
    .prefault({}),
  queue: z
    .strictObject({
      maxWaitMs: z.number().int().positive().max(3_600_000).default(30_000),
      maxRequests: z.number().int().positive().max(1_000_000).default(10_000),
      maxRequestsPerAccount: z.number().int().positive().max(1_000_000).default(1000),
    })
    .prefault({}),
  tls: z
    .strictObject({
      certFile: file.optional(),
      keyFile: file.optional(),
    })
    .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), {
      error: "certFile and keyFile go together: give both or neither",
    })
    .prefault({}),
  security: z
    .strictObject({
      requireHttps: z.boolean().default(false),
      trustedProxies: z.array(cidr).default([]),
      hstsMaxAgeSeconds: z.number().int().min(0).default(31_536_000),
    })
    .prefault({}),
  shutdown: z
    .strictObject({
      drainSeconds: z.number().int().min(0).default(30),
    })
    .prefault({}),
  redis: z
    .strictObject({
      url: z
        .string()
        .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
        .refine((url) => redisDatabase(url) !== null, {
          error: "may have a database number as its path (redis://host:6379/2), nothing else",
        })
        .default("redis://127.0.0.1:6379"),
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9:_.-]*$/, "may contain only letters, digits and : _ . -")
        .default("tg:"),
      username: z.string().min(1).optional(),
      password: z.string().min(1).optional(),
      tls: z
        .strictObject({
          enabled: z.boolean().default(false),
          caFile: file.optional(),
          certFile: file.optional(),
          keyFile: file.optional(),
          rejectUnauthorized: z.boolean().default(true),
        })
        .prefault({}),
      cluster: z
        .strictObject({
          nodes: z.array(hostPort).min(1, "needs at least one seed node"),
        })
        .optional(),
      sentinel: z
        .strictObject({
          sentinels: z.array(hostPort).min(1, "needs at least one sentinel"),
          name: z.string().min(1),
          password: z.string().min(1).optional(),
        })
        .optional(),
      commandTimeoutMs: z.number().int().positive().default(5000),
      allowNoPersistence: z.boolean().default(false),
      // Replicas that must have a settlement's write (WAIT) before it counts as done (docs/redis.md).
      settlementReplicas: z.union([z.literal("auto"), z.number().int().min(0).max(16)]).default("auto"),
      settlementReplicaTimeoutMs: z.number().int().min(1).max(60_000).default(250),
    })
    .refine((redis) => !(redis.cluster && redis.sentinel), {
      error: "use either cluster or sentinel, not both",
    })
    // With cluster or sentinel the URL is not used: a database number in it would be silently ignored.
    .refine((redis) => !(redis.cluster || redis.sentinel) || redisDatabase(redis.url) === 0, {
      error:
        "a database number in redis.url does not apply with redis.cluster or redis.sentinel, where the URL " +
        "is not used (Redis Cluster has only database 0): remove it",
      path: ["url"],
    })
    .prefault({}),
  metrics: z
    .strictObject({
      enabled: z.boolean().default(true),
      host: host.default("127.0.0.1"),
      port: port.default(9464),
      token: secret.optional(),
      perKey: z.boolean().default(true),
      maxKeySeries: z.number().int().min(0).default(1000),
      maxModelSeries: z.number().int().min(1).default(100),
      maxAccountSeries: z.number().int().min(0).default(1000),
    })
    .prefault({}),
  /** OpenTelemetry: on and off, endpoints and sampling come from the standard OTEL_* variables. */
  telemetry: z
    .strictObject({
      genAiProvider: z.string().trim().min(1).max(64).default("vllm"),
    })
    .prefault({}),
  admin: z
    .strictObject({
      host: host.default("127.0.0.1"),
      port: port.default(8081),
      token: secret.optional(),
      externalUrl: externalUrl.optional(),
    })
    .prefault({}),
  signIn,
  requestLog: z
    .strictObject({
      maxPerKey: z.number().int().min(0).default(1000),
      maxBodyBytes: z.number().int().min(0).default(2048),
      /** A key's list expires this many days after its last request, so that unused keys leave nothing behind. */
      retentionDays: z.number().int().min(1).default(30),
    })
    .prefault({}),
  billing: z
    .strictObject({
      timezone: z
        .string()
        .refine(isValidTimeZone, { error: "must be an IANA time zone name such as UTC or Europe/Moscow" })
        .default("UTC"),
      reservationTtlSeconds: z.number().int().min(10).default(900),
      lateSettlementSeconds: z.number().int().min(60).default(86_400),
      // How often each replica compares what it charged with what Redis holds (0: never; docs/billing.md).
      driftCheckSeconds: z.number().int().min(0).default(30),
      overage: z.enum(["absorb", "charge"]).default("absorb"),
      // Admission leases (docs/leases.md): requests admitted without a Redis round trip where sound.
      leases: z.boolean().default(true),
      maxPromptTokens: tokens.default(2_000_000),
      // Switching a key to a monthly budget sums up to 31 days of its daily usage, so they must be kept as long.
      usageRetentionDays: z
        .number()
        .int()
        .min(31, "must be at least 31: a key switched to a monthly budget counts up to 31 days of usage")
        .default(400),
    })
    .prefault({}),
  pricing: z
    .strictObject({
      default: defaultPrice.prefault({}),
      models: z.record(z.string().min(1), price).default({}),
    })
    .prefault({}),
  estimate: z
    .strictObject({
      reserveBytesPerToken: z.number().positive().default(1),
      usageBytesPerToken: z.number().positive().default(4),
    })
    .prefault({}),
  limits: z
    .strictObject({
      maxBodyBytes: z
        .number()
        .int()
        .positive()
        .default(10 * 1024 * 1024),
      maxJsonDepth: z.number().int().min(2).max(1000).default(128),
      maxChoices: z.number().int().positive().max(1024).default(16),
    })
    .prefault({}),
  metering: z
    .strictObject({
      maxEventBytes: z
        .number()
        .int()
        .positive()
        .default(1024 * 1024),
      maxJsonBytes: z
        .number()
        .int()
        .positive()
        .default(4 * 1024 * 1024),
      maxDecompressedBytes: z
        .number()
        .int()
        .positive()
        .default(64 * 1024 * 1024),
    })
    .prefault({}),
  alerts,
  logging: z
    .strictObject({
      level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
      bodies: z.boolean().default(true),
      maxBodyBytes: z.number().int().min(0).default(4096),
    })
    .prefault({}),
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type Price = z.output<typeof price>;
