// Every identity event — sign-ins and their failures, lockouts, passwords, invitations, API tokens,
// sessions, re-checks with the identity providers, linking a provider, SCIM provisioning — declared once,
// each with its outcomes and the level its log line is written at. Each event is a Node diagnostics channel,
// `tunnel-gateway:identity:<event>`, named and published in core/channels.ts with the gateway's other events
// (the one list of every channel); the subscribers — the log line and the metric
// (observability/identity-events.ts) — know nothing of where it happens. A published event carries no
// secret: its fields are the ones below, and none of them holds a password, a token, a session id or a hash
// of one.

type Level = "info" | "warn";

interface EventDeclaration {
  /** What happened, the log line's message. */
  message: string;
  /** Each outcome (the metric's label, bounded) with the level its log line is written at. */
  outcomes: Readonly<Record<string, Level>>;
}

export const IDENTITY_EVENTS = {
  "sign_in.password": {
    message: "sign-in with a password",
    outcomes: {
      success: "info",
      unknown_user: "warn",
      wrong_password: "warn",
      locked: "warn",
      user_disabled: "warn",
    },
  },
  "sign_in.oidc": {
    message: "sign-in with an identity provider",
    outcomes: {
      success: "info",
      provider_error: "warn",
      provider_unavailable: "warn",
      state_mismatch: "warn",
      browser_mismatch: "warn",
      nonce_mismatch: "warn",
      no_email: "warn",
      unverified_email: "warn",
      link_required: "warn",
      no_rule: "warn",
      user_disabled: "warn",
    },
  },
  lockout: {
    message: "sign-in locked after too many failures",
    outcomes: { email: "warn", address: "warn" },
  },
  unlock: {
    message: "sign-in lock lifted",
    outcomes: { signed_in: "info", operator: "info" },
  },
  "password.change": {
    message: "password change",
    outcomes: { success: "info", wrong_password: "warn", locked: "warn", weak_password: "info" },
  },
  "password.link": {
    message: "set-password link used",
    outcomes: { success: "info", invalid_link: "warn", weak_password: "info", user_disabled: "warn" },
  },
  "invitation.accept": {
    message: "invitation accepted",
    outcomes: {
      success: "info",
      invalid_link: "warn",
      weak_password: "info",
      user_exists: "info",
      provider_required: "warn",
      refused: "warn",
    },
  },
  "token.create": {
    message: "API token created",
    outcomes: { success: "info", refused: "warn" },
  },
  "token.revoke": {
    message: "API token revoked",
    outcomes: { by_owner: "info", by_operator: "info" },
  },
  "session.revoke": {
    message: "session ended",
    outcomes: {
      signed_out: "info",
      revoked: "info",
      everywhere: "info",
      password_changed: "info",
      user_disabled: "info",
      provider_refused: "warn",
      provider_unconfirmed: "warn",
    },
  },
  "provider.check": {
    message: "person re-checked with their identity provider",
    outcomes: { confirmed: "info", roles_changed: "info", refused: "warn", unreachable: "warn" },
  },
  "provider.link": {
    message: "identity provider linked to a person",
    outcomes: { by_person: "info", by_operator: "info", by_directory: "info", refused: "warn" },
  },
  "scim.token": {
    message: "SCIM token",
    outcomes: { created: "info", revoked: "info", unauthorized: "warn" },
  },
  "scim.user.create": { message: "SCIM: user created", outcomes: { success: "info", refused: "warn" } },
  "scim.user.update": {
    message: "SCIM: user replaced or patched",
    outcomes: { success: "info", refused: "warn" },
  },
  "scim.user.deactivate": {
    message: "SCIM: user deactivated",
    outcomes: { success: "info", refused: "warn" },
  },
  "scim.user.delete": { message: "SCIM: user deleted", outcomes: { success: "info", refused: "warn" } },
  "scim.group.members": {
    message: "SCIM: group members changed",
    outcomes: { success: "info", refused: "warn" },
  },
} as const satisfies Record<string, EventDeclaration>;

export type IdentityEventName = keyof typeof IDENTITY_EVENTS;
export type OutcomeOf<E extends IdentityEventName> = keyof (typeof IDENTITY_EVENTS)[E]["outcomes"] & string;

export const IDENTITY_EVENT_NAMES = Object.keys(IDENTITY_EVENTS) as IdentityEventName[];

/** What an event may say besides its name and outcome: who, where, with what — never a secret. */
export interface IdentityEventFields {
  /** The person (usr_…), when known. */
  userId?: string;
  /**
   * The e-mail a sign-in named, when it names nobody (unknown_user): logged as a short SHA-256, so that a
   * credential-stuffing run shows as many different ones without a password typed into the e-mail field
   * reaching the log.
   */
  email?: string;
  provider?: string;
  /** The client's address. */
  address?: string;
  accountId?: string;
  tokenId?: string;
  invitationId?: string;
  /** A few words more (an error's message from the provider, the roles a re-check changed). */
  detail?: string;
  /** How many (sessions ended, grants changed). */
  count?: number;
}

/** The level an event's outcome is logged at. */
export function levelOf(event: IdentityEventName, outcome: string): Level {
  return (IDENTITY_EVENTS[event].outcomes as Readonly<Record<string, Level>>)[outcome] ?? "warn";
}
