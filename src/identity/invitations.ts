// Invitations: an owner (or an operator) invites an e-mail into an account with a role; the person opens the
// one-time link (identity/links.ts) and either signs up — a local user with a password — or, already signed
// in with that e-mail, gets the membership added. Pending invitations are listed and revocable; accepting one
// is a direct grant, which no provider's mapping removes.

import { randomToken } from "../auth/api-key.js";
import type { IdentityEvents } from "../core/channels.js";
import { type ErrorCode, GatewayError, redisRefusal } from "../core/errors.js";
import type { OutcomeOf } from "../core/identity-events.js";
import { DIRECT } from "../core/roles.js";
import type { AccountStore } from "../store/accounts/account-store.js";
import { type Actor, actorName, auditEntry } from "../store/audit/audit-store.js";
import type { InvitationRecord, InvitationStore } from "../store/people/invitation-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import { type LinkPayload, type Links, linkUrl } from "./links.js";
import type { Principal } from "./principal.js";
import { requiredProvider } from "./provider-domains.js";
import type { RoleGrants } from "./role-grants.js";
import type { ProviderSettings } from "./settings.js";
import { type Users, validateAccountRole, validateEmail } from "./users.js";

/** The invitation.accept outcome of each refusal. */
const REFUSALS: Partial<Record<ErrorCode, OutcomeOf<"invitation.accept">>> = {
  invitation_invalid: "invalid_link",
  weak_password: "weak_password",
  user_exists: "user_exists",
  provider_required: "provider_required",
  forbidden: "refused",
};

function providerRequired(provider: ProviderSettings): GatewayError {
  return new GatewayError(
    "provider_required",
    `This invitation is for an e-mail of ${provider.name}: sign in with ${provider.name} to accept it.`,
    { fields: { provider: provider.id } },
  );
}

export interface InvitationDeps {
  store: InvitationStore;
  links: Links;
  users: Users;
  grants: Pick<RoleGrants, "grant">;
  accounts: AccountStore;
  ttlMs: number;
  /** Whether people may sign up with a password (signIn.local.enabled). */
  localUsers: boolean;
  /** The identity providers, whose domains' invitations are accepted only through them. */
  providers: readonly ProviderSettings[];
  events: IdentityEvents;
  now: () => number;
}

export interface Acceptance {
  /** A new password, for a person who has no user yet. */
  password?: unknown;
  name?: unknown;
}

export class Invitations {
  constructor(private readonly deps: InvitationDeps) {}

  /** Invites an e-mail into an account; returns the invitation and its link, shown this once. */
  async create(
    accountId: string,
    input: { email: unknown; role: unknown },
    actor: Actor,
    base: string,
  ): Promise<{ invitation: InvitationRecord; url: string }> {
    const email = validateEmail(input.email);
    const role = validateAccountRole(input.role);
    await this.deps.accounts.require(accountId);
    const now = this.deps.now();
    const id = `inv_${randomToken(20)}`;
    const expiresAt = now + this.deps.ttlMs;
    const { token, hash } = await this.deps.links.issue({
      kind: "invitation",
      accountId,
      invitationId: id,
      expiresAt,
    });
    const invitation: InvitationRecord = {
      id,
      accountId,
      email,
      role,
      hash,
      createdAt: now,
      expiresAt,
      invitedBy: actorName(actor),
    };
    const audit = auditEntry(actor, now, "invitation.create", accountId, { invitation_id: id, email, role });
    await this.deps.store.set(accountId, id, invitation, audit);
    return { invitation, url: linkUrl(base, "invitation", token) };
  }

  /** The account's invitations still pending (expired ones are left out). */
  async list(accountId: string): Promise<InvitationRecord[]> {
    const now = this.deps.now();
    return (await this.deps.store.list(accountId)).filter((invitation) => invitation.expiresAt > now);
  }

  async revoke(accountId: string, invitationId: string, actor: Actor): Promise<void> {
    const invitation = await this.deps.store.get(accountId, invitationId);
    if (!invitation)
      throw new GatewayError("invitation_not_found", `no invitation ${invitationId} in account ${accountId}`);
    await this.deps.links.cancel(invitation.hash);
    const audit = auditEntry(actor, this.deps.now(), "invitation.revoke", accountId, {
      invitation_id: invitationId,
      email: invitation.email,
    });
    await this.deps.store.set(accountId, invitationId, null, audit);
  }

  /** What a link invites to, for the page that accepts it (nothing is taken). */
  async describe(token: unknown): Promise<InvitationRecord> {
    return (await this.pending(token)).invitation;
  }

  /**
   * Accepts an invitation: with `signedIn`, a person signed in with the invited e-mail, the membership is
   * theirs; without, a local user is created with the given password. The link is taken only once every
   * check has passed, so that a refused try (a weak password) leaves it usable. An e-mail an identity
   * provider speaks for (provider-domains.ts) is accepted only by a person signed in through that provider.
   * Every outcome is an invitation.accept event.
   */
  async accept(
    token: unknown,
    input: Acceptance,
    signedIn: Principal | null,
  ): Promise<{ user: UserRecord; created: boolean; invitation: InvitationRecord }> {
    let invitation: InvitationRecord;
    let link: LinkPayload;
    try {
      ({ invitation, link } = await this.pending(token));
    } catch (error) {
      this.deps.events.publish("invitation.accept", "invalid_link");
      throw error;
    }
    const about = { invitationId: invitation.id, accountId: invitation.accountId };
    try {
      const accepted = await this.acceptPending(token as string, invitation, link, input, signedIn);
      this.deps.events.publish("invitation.accept", "success", { ...about, userId: accepted.user.id });
      return accepted;
    } catch (error) {
      const outcome = error instanceof GatewayError ? REFUSALS[error.code] : undefined;
      if (outcome)
        this.deps.events.publish("invitation.accept", outcome, {
          ...about,
          ...(signedIn?.user && { userId: signedIn.user.id }),
        });
      throw error;
    }
  }

  private async acceptPending(
    token: string,
    invitation: InvitationRecord,
    link: LinkPayload,
    input: Acceptance,
    signedIn: Principal | null,
  ): Promise<{ user: UserRecord; created: boolean; invitation: InvitationRecord }> {
    const { users } = this.deps;
    const provider = requiredProvider(this.deps.providers, invitation.email);
    let user: UserRecord;
    let created = false;
    let actor: Actor;
    if (signedIn?.user) {
      if (signedIn.user.email !== invitation.email)
        throw new GatewayError(
          "forbidden",
          `This invitation is for ${invitation.email}; you are signed in as ${signedIn.user.email}.`,
        );
      const session = signedIn.credential.kind === "session" ? signedIn.credential.session : null;
      if (provider && session?.provider !== provider.id) throw providerRequired(provider);
      await this.deps.links.take(token, "invitation");
      user = signedIn.user;
      actor = signedIn.actor;
    } else {
      if (provider) throw providerRequired(provider);
      if (await users.byEmail(invitation.email))
        throw new GatewayError(
          "user_exists",
          `A user with the e-mail ${invitation.email} exists: sign in first, then open the invitation again.`,
        );
      if (!this.deps.localUsers)
        throw new GatewayError(
          "forbidden",
          "Password sign-in is off here: sign in with your identity provider first, then open the invitation again.",
        );
      // The user and their password are written together, after every check; the link is taken next, and a
      // link another request took meanwhile undoes the user: a refused acceptance leaves nothing behind.
      user = await users.create(
        { email: invitation.email, name: input.name, password: input.password },
        { self: { via: "password" } },
      );
      try {
        await this.deps.links.take(token, "invitation");
      } catch (error) {
        await users.discardNew(user);
        throw error;
      }
      actor = { kind: "user", userId: user.id, name: user.name, via: "password" };
      created = true;
    }
    const role = validateAccountRole(invitation.role);
    try {
      await this.deps.grants.grant(invitation.accountId, user.id, DIRECT, role, actor);
    } catch (error) {
      // Redis refused the grant (an ACL, a key in the way): the acceptance did not happen, so the user it
      // made goes and the link works again.
      if (created) await users.discardNew(user);
      await this.deps.links.giveBack(token, link);
      throw redisRefusal(
        error,
        `to grant ${invitation.email} the role ${role} in account ${invitation.accountId}`,
      );
    }
    const audit = auditEntry(actor, this.deps.now(), "invitation.accept", invitation.accountId, {
      invitation_id: invitation.id,
      email: invitation.email,
      role: invitation.role,
    });
    await this.deps.store.set(invitation.accountId, invitation.id, null, audit);
    return { user, created, invitation };
  }

  /** The provider an invitation must be accepted through, for the page that shows it; null: any way. */
  providerFor(invitation: InvitationRecord): ProviderSettings | null {
    return requiredProvider(this.deps.providers, invitation.email);
  }

  private async pending(token: unknown): Promise<{ invitation: InvitationRecord; link: LinkPayload }> {
    const link = await this.deps.links.peek(token, "invitation");
    const invitation = await this.deps.store.get(link.accountId, link.invitationId);
    if (!invitation) throw new GatewayError("invitation_invalid");
    return { invitation, link };
  }
}
