// The shapes of the admin API's routes about people — who is calling, signing in, sessions, API tokens,
// members, invitations, users — as zod schemas: the router validates requests with them, and the OpenAPI
// document (and the dashboard's types) come from them.

import { z } from "zod";
import { ACCOUNT_ROLES, OPERATOR_ROLES } from "../core/roles.js";
import { isoTime } from "../core/time-schema.js";
import { ACTIONS } from "../identity/permissions.js";
import { UserAuditEntry } from "../store/audit/audit-schema.js";
import { RequiredProvider } from "./link-schemas.js";

const operatorRole = z.enum(OPERATOR_ROLES);
const accountRole = z.enum(ACCOUNT_ROLES);
const action = z.enum(ACTIONS as [string, ...string[]]);

export const UserIdParam = z
  .string()
  .meta({ description: "User id", examples: ["usr_5m2x8q0c7w1r9t4z6b3n"] });
export const TokenIdParam = z
  .string()
  .meta({ description: "API token id", examples: ["tok_5m2x8q0c7w1r9t4z6b3n"] });
const sessionHandle = z.string().meta({
  description:
    "The session's opaque handle, for listing and revoking it: neither the session id (the cookie) nor anything Redis keeps",
  examples: ["ses_3f9a0c2e7b514d6a8e1f0b2c4d6e8a0b"],
});
export const SessionIdParam = sessionHandle;
export const InvitationIdParam = z
  .string()
  .meta({ description: "Invitation id", examples: ["inv_5m2x8q0c7w1r9t4z6b3n"] });
export const ProviderIdParam = z.string().meta({ description: "Identity provider id", examples: ["corp"] });

const Person = z.object({ id: z.string(), name: z.string(), email: z.string() }).meta({ id: "Person" });

const Grant = z
  .object({
    source: z
      .string()
      .meta({ description: '"direct" (CLI, invitation, owner, operator) or "oidc:<provider>"' }),
    role: z.string(),
  })
  .meta({ id: "Grant" });

export const Me = z
  .object({
    role: z.enum(["admin", "account"]).meta({
      description:
        "Legacy: admin for a credential with an operator role, else account (with account_id, its first account)",
    }),
    account_id: z.string().nullable(),
    timezone: z
      .string()
      .meta({ description: "The billing time zone: where budget periods and usage days begin" }),
    credential: z.enum(["session", "api-token", "admin-token", "account-token"]),
    user: Person.nullable().meta({
      description: "The person behind the credential; null for the legacy tokens",
    }),
    signed_in_with: z
      .object({ via: z.enum(["oidc", "password"]), provider: z.string().nullable() })
      .nullable()
      .meta({ description: "How the session was signed in; null for tokens" }),
    linked_providers: z.array(z.string()).meta({
      description:
        "The identity providers the person has signed in with (linked); empty for the legacy tokens",
    }),
    operator_role: operatorRole.nullable(),
    memberships: z.array(z.object({ account_id: z.string(), account_name: z.string(), role: accountRole })),
    actions: z
      .object({
        global: z.array(action).meta({ description: "Actions over every account (operator roles)" }),
        every_account: z
          .array(action)
          .meta({ description: "Actions allowed in every account by the operator role alone" }),
        accounts: z
          .record(z.string(), z.array(action))
          .meta({ description: "Per account of memberships: the actions its role allows" }),
      })
      .meta({
        description: "What the permission table allows this credential: drives the dashboard's menus",
      }),
    csrf_token: z
      .string()
      .nullable()
      .meta({ description: "Send as x-csrf-token with every state-changing call on the session cookie" }),
    session: z
      .object({
        id: sessionHandle,
        created_at: isoTime,
        expires_at: isoTime,
        idle_timeout_seconds: z.number(),
      })
      .nullable(),
  })
  .meta({ id: "Me" });

export const Providers = z
  .object({
    providers: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        start_url: z.string().meta({ description: "Navigate here (add ?return_to=/path) to sign in" }),
      }),
    ),
    password: z.boolean().meta({ description: "Whether the e-mail and password form signs in" }),
    min_password_length: z.number().meta({
      description: "The fewest characters a new password may have (signIn.local.minPasswordLength)",
    }),
    session: z.enum(["active", "ended", "none"]).meta({
      description:
        "Whether this browser's session cookie names a live session (then GET /admin/v1/me says who), one that has ended, or none: the dashboard knows where to start without a refused request",
    }),
  })
  .meta({ id: "Providers" });

export const PasswordSignInBody = z.strictObject({ email: z.string(), password: z.string() }).meta({
  id: "PasswordSignIn",
  examples: [{ email: "anna@example.com", password: "a long passphrase of her own" }],
});

export const SignedIn = z
  .object({ user: Person, csrf_token: z.string() })
  .meta({ id: "SignedIn", description: "The session cookie is set with this answer" });

export const SignedOut = z.object({ signed_out: z.boolean() }).meta({ id: "SignedOut" });

export const LinkBody = z
  .strictObject({ token: z.string() })
  .meta({ id: "LinkToken", examples: [{ token: "4mVq8sK2xN7pR1tY9wB3cF6hJ0dL5gZe" }] });

export const InvitationPreview = z
  .object({
    account_id: z.string(),
    account_name: z.string(),
    email: z.string(),
    role: accountRole,
    expires_at: isoTime,
    provider: RequiredProvider,
  })
  .meta({ id: "InvitationPreview" });

export const AcceptInvitationBody = z
  .strictObject({
    token: z.string(),
    password: z.string().optional().meta({ description: "For a person new here: their password" }),
    name: z.string().optional().meta({ description: "For a person new here: their display name" }),
  })
  .meta({
    id: "AcceptInvitation",
    examples: [
      {
        token: "4mVq8sK2xN7pR1tY9wB3cF6hJ0dL5gZe",
        name: "Anna Petrova",
        password: "a long passphrase of her own",
      },
    ],
  });

export const AcceptedInvitation = z
  .object({
    user: Person,
    account_id: z.string(),
    role: accountRole,
    created: z.boolean().meta({ description: "A new user was created (and signed in: the cookie is set)" }),
    csrf_token: z.string().nullable(),
  })
  .meta({ id: "AcceptedInvitation" });

export const SetPasswordBody = z.strictObject({ token: z.string(), password: z.string() }).meta({
  id: "SetPassword",
  examples: [{ token: "4mVq8sK2xN7pR1tY9wB3cF6hJ0dL5gZe", password: "a long passphrase of her own" }],
});

export const ChangePasswordBody = z
  .strictObject({ current_password: z.string(), new_password: z.string() })
  .meta({
    id: "ChangePassword",
    examples: [
      { current_password: "the passphrase she has", new_password: "a longer passphrase of her own" },
    ],
  });

export const PasswordChanged = z.object({ changed: z.boolean() }).meta({ id: "PasswordChanged" });

export const Session = z
  .object({
    id: sessionHandle,
    created_at: isoTime,
    last_seen_at: isoTime,
    via: z.enum(["oidc", "password"]),
    provider: z.string().nullable(),
    user_agent: z.string(),
    address: z.string(),
    current: z.boolean().meta({ description: "The session this call was made with" }),
  })
  .meta({ id: "Session" });

export const Sessions = z.object({ sessions: z.array(Session) }).meta({ id: "Sessions" });

export const Revoked = z.object({ revoked: z.number() }).meta({ id: "Revoked" });

export const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.union([operatorRole, accountRole]),
    account_id: z.string().nullable(),
    hint: z.string(),
    created_at: isoTime,
    expires_at: isoTime,
    last_used_at: isoTime.nullable(),
    expired: z.boolean(),
  })
  .meta({ id: "ApiToken" });

export const ApiTokens = z.object({ tokens: z.array(ApiToken) }).meta({ id: "ApiTokens" });

export const CreatedApiToken = ApiToken.extend({
  token: z.string().meta({ description: "The token's value (Authorization: Bearer …): shown this once" }),
}).meta({ id: "CreatedApiToken" });

export const CreateApiTokenBody = z
  .strictObject({
    name: z.string(),
    role: z.union([operatorRole, accountRole]).meta({ description: "At most a role the caller holds" }),
    account_id: z.string().optional().meta({ description: "With an account role: the account" }),
    days: z
      .number()
      .optional()
      .meta({ description: "Lifetime in days (default and most: signIn.apiTokens.maxDays)" }),
  })
  .meta({
    id: "CreateApiToken",
    examples: [{ name: "ci-deploy", role: "member", account_id: "acme", days: 90 }],
  });

export const Member = z
  .object({
    user_id: z.string(),
    name: z.string(),
    email: z.string(),
    status: z.enum(["active", "disabled"]),
    role: accountRole.meta({ description: "The highest of the grants" }),
    grants: z.array(Grant),
  })
  .meta({ id: "Member" });

export const Members = z.object({ members: z.array(Member) }).meta({ id: "Members" });

export const UpdateMemberBody = z
  .strictObject({ role: accountRole.meta({ description: "The direct grant (a provider's grant stays)" }) })
  .meta({ id: "UpdateMember", examples: [{ role: "viewer" }] });

export const Removed = z.object({ removed: z.boolean() }).meta({ id: "Removed" });

export const Invitation = z
  .object({
    id: z.string(),
    email: z.string(),
    role: accountRole,
    created_at: isoTime,
    expires_at: isoTime,
    invited_by: z.string(),
  })
  .meta({ id: "Invitation" });

export const Invitations = z.object({ invitations: z.array(Invitation) }).meta({ id: "Invitations" });

export const CreatedInvitation = Invitation.extend({
  url: z.string().meta({
    description: "The one-time link to send the person (its token is in the fragment): shown this once",
  }),
}).meta({ id: "CreatedInvitation" });

export const CreateInvitationBody = z
  .strictObject({ email: z.string(), role: accountRole })
  .meta({ id: "CreateInvitation", examples: [{ email: "boris@example.com", role: "member" }] });

export const User = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    status: z.enum(["active", "disabled"]),
    operator_role: operatorRole.nullable(),
    operator_grants: z.array(Grant),
    providers: z.array(z.string()),
    password: z.boolean().meta({ description: "Whether the person has a local password" }),
    created_at: isoTime,
    last_sign_in_at: isoTime.nullable(),
  })
  .meta({ id: "User" });

export const Users = z.object({ users: z.array(User) }).meta({ id: "Users" });

export const UserDetail = User.extend({
  memberships: z.array(z.object({ account_id: z.string(), role: accountRole, grants: z.array(Grant) })),
  tokens: z.array(ApiToken),
  sessions: z.number().meta({ description: "How many live sessions the person has" }),
}).meta({ id: "UserDetail" });

export const UserAuditLog = z.object({ entries: z.array(UserAuditEntry) }).meta({ id: "UserAuditLog" });
