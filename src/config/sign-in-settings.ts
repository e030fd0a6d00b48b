// The sign-in settings: local passwords, failed attempts and locks, sessions, invitations, API tokens, the
// re-checks of provider sign-ins, the OpenID Connect providers with their mapping rules, and SCIM.

import { z } from "zod";
import { ACCOUNT_ROLES, OPERATOR_ROLES } from "../core/roles.js";
import { envName, file, httpUrl } from "./fields.js";

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

export const signInSection = z
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
