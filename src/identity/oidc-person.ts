// Who a provider's identity is, once the provider has vouched for it: the person its subject is linked to;
// or, the first time, a new person — or an existing one, but never silently one who already signs in
// another way (a password, another provider). Linking those needs proof of both: the person signed in as
// before asks for the link (My account), or an operator allows it (`users link`). A user nobody has signed
// in as yet (made by an operator or by SCIM, no password) is linked by the verified e-mail the operator gave
// it. Then the provider's mapping rules give their grants, and the link's tokens are kept, sealed, for the
// re-checks between sign-ins (provider-check.ts).

import type { Logger } from "pino";
import type { IdentityEvents } from "../core/channels.js";
import { GatewayError } from "../core/errors.js";
import type { OutcomeOf } from "../core/identity-events.js";
import { oidcSource } from "../core/roles.js";
import type { Actor } from "../store/audit/audit-store.js";
import type { ProviderLinkStore } from "../store/people/provider-link-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { UserStore } from "../store/people/user-store.js";
import { groupsOf, mapIdentity } from "./group-mapping.js";
import type { ProviderTokens } from "./oidc-recheck.js";
import type { RoleGrants } from "./role-grants.js";
import type { ProviderSettings } from "./settings.js";
import type { TokenCipher } from "./token-cipher.js";
import type { Users } from "./users.js";

/** What a provider says of a person it has just vouched for (oidc.ts builds it at the callback). */
export interface VerifiedIdentity {
  provider: ProviderSettings;
  subject: string;
  /** The ID token's claims, filled in from userinfo where they lack the e-mail or the groups. */
  profile: Record<string, unknown>;
  tokens: ProviderTokens;
}

export interface ProviderPeopleDeps {
  users: Users;
  grants: Pick<RoleGrants, "applyProviderGrants">;
  userStore: UserStore;
  links: ProviderLinkStore;
  events: IdentityEvents;
  logger: Logger;
  /** The cipher of a provider's tokens, or null for one whose tokens are not kept. */
  cipher(providerId: string): TokenCipher | null;
  /** signIn.providerCheck.intervalMinutes, in ms; 0: no re-checks. */
  checkIntervalMs: number;
  /** How long an operator's leave to link lasts (signIn.local.passwordLinkHours). */
  allowanceMs: number;
  /** The configured provider's settings; 404 provider_not_found otherwise. */
  provider(id: string): ProviderSettings;
  /** signIn.scim.provider: the provider whose sign-ins take the directory's word for the people it made. */
  scimProvider: string | null;
  /** Whether a user was made by a SCIM client (it keeps SCIM attributes for them). */
  madeByScim(userId: string): Promise<boolean>;
  now: () => number;
}

/** What a provider says of a person's e-mail, as its settings let it be believed. */
export function emailOf(provider: ProviderSettings, profile: Record<string, unknown>) {
  const email = typeof profile.email === "string" ? profile.email.trim().toLowerCase() : null;
  const verified = email !== null && (profile.email_verified === true || provider.trustUnverifiedEmail);
  return { email, verified };
}

export class ProviderPeople {
  constructor(private readonly deps: ProviderPeopleDeps) {}

  /**
   * The person a provider's identity is: found, linked or created; the mapping applied and the tokens kept.
   * `linkTo`: the signed-in person who asked to link this provider to themselves.
   */
  async signIn(
    identity: VerifiedIdentity,
    linkTo: string | null,
  ): Promise<{ user: UserRecord; linked: boolean }> {
    const { provider, subject, profile } = identity;
    const method = { via: "oidc" as const, provider: provider.id };
    const refuse = (outcome: OutcomeOf<"sign_in.oidc">, error: GatewayError, userId?: string) => {
      this.deps.events.publish("sign_in.oidc", outcome, { provider: provider.id, ...(userId && { userId }) });
      return error;
    };
    const { users, userStore } = this.deps;
    const { email, verified } = emailOf(provider, profile);
    const name = typeof profile.name === "string" && profile.name.trim() !== "" ? profile.name.trim() : email;
    let user = await userStore.bySubject(provider.id, subject);
    let linked = false;
    if (linkTo !== null) {
      if (user && user.id !== linkTo) {
        this.deps.events.publish("provider.link", "refused", { provider: provider.id, userId: linkTo });
        throw new GatewayError(
          "forbidden",
          `This ${provider.name} identity is already linked to another person: sign in with it as them, or ask an operator.`,
        );
      }
      if (!user) {
        user = await users.get(linkTo);
        if (!user) throw refuse("link_required", new GatewayError("session_expired"));
        await this.link(user, provider, subject, "by_person");
        linked = true;
      }
    } else if (!user) {
      if (email === null)
        throw refuse(
          "no_email",
          new GatewayError(
            "sign_in_failed",
            `The identity provider ${provider.name} gave no e-mail: add the email scope (or claim).`,
          ),
        );
      const existing = await users.byEmail(email);
      // A person the directory made, signing in through the provider SCIM speaks for: the identity team
      // vouched that this e-mail is this person, whatever the provider says of it (Entra ID never sends
      // email_verified). Through any other provider a directory's user needs proof like anyone's.
      const scimMade = existing !== null && (await this.deps.madeByScim(existing.id));
      const directoryVouches = scimMade && this.deps.scimProvider === provider.id;
      if (existing && !verified && !directoryVouches)
        throw refuse(
          "unverified_email",
          new GatewayError(
            "sign_in_failed",
            `A user with the e-mail ${email} exists, and ${provider.name} does not say the e-mail is verified: ask an operator.`,
          ),
          existing.id,
        );
      if (existing) {
        const allowed = await this.deps.links.takeAllowance(existing.id, provider.id, this.deps.now());
        if (!allowed && !directoryVouches && (scimMade || signsInOtherwise(existing, provider.id)))
          throw refuse(
            "link_required",
            new GatewayError(
              "provider_link_required",
              `A user with the e-mail ${email} already signs in another way. Sign in as before, then link ${provider.name} from My account — or ask an operator to allow the link.`,
              { fields: { provider: provider.id } },
            ),
            existing.id,
          );
        await this.link(
          existing,
          provider,
          subject,
          allowed ? "by_operator" : directoryVouches ? "by_directory" : null,
        );
        user = existing;
      } else {
        if (!provider.createUnmatched && !this.mapsAnything(provider, profile))
          throw refuse(
            "no_rule",
            new GatewayError(
              "forbidden",
              `${provider.name} signed you in, but no rule of this gateway gives you a role: ask an operator or an owner to invite you.`,
            ),
          );
        user = await users.create({ email, name }, { self: method });
        await userStore.linkSubject(provider.id, subject, user.id);
      }
    }
    if (user.status === "disabled") throw refuse("user_disabled", new GatewayError("user_disabled"), user.id);
    await this.applyMapping(user, provider, profile);
    await this.keep(user.id, provider, subject, identity.tokens);
    return { user, linked };
  }

  /**
   * An operator lets the person's next sign-in with the provider (its verified e-mail theirs) link to them
   * although they sign in another way; returns until when (ms). Audited.
   */
  async allowLink(userId: string, providerId: string, actor: Actor): Promise<number> {
    const provider = this.deps.provider(providerId);
    const user = await this.deps.userStore.require(userId);
    const until = this.deps.now() + this.deps.allowanceMs;
    await this.deps.links.allowLink(user.id, provider.id, until, this.deps.allowanceMs);
    await this.deps.users.record(user.id, actor, "user.provider_link", {
      provider: provider.id,
      allowed_until: new Date(until).toISOString(),
    });
    return until;
  }

  /** Whether the provider's rules give a person with this profile any role at all. */
  private mapsAnything(provider: ProviderSettings, profile: Record<string, unknown>): boolean {
    const { email, verified } = emailOf(provider, profile);
    const mapped = mapIdentity(provider.rules, {
      groups: groupsOf(profile[provider.groupsClaim]),
      email,
      emailVerified: verified,
    });
    return mapped.operator !== null || mapped.accounts.size > 0;
  }

  /**
   * Links the subject to the person; `how`, when the link needed proof (or the directory's word), is
   * reported and audited.
   */
  private async link(
    user: UserRecord,
    provider: ProviderSettings,
    subject: string,
    how: "by_person" | "by_operator" | "by_directory" | null,
  ): Promise<void> {
    await this.deps.userStore.linkSubject(provider.id, subject, user.id);
    if (how === null) return;
    this.deps.events.publish("provider.link", how, { provider: provider.id, userId: user.id });
    const actor: Actor = {
      kind: "user",
      userId: user.id,
      name: user.name,
      via: "oidc",
      provider: provider.id,
    };
    await this.deps.users.record(user.id, actor, "user.provider_link", { provider: provider.id, how });
  }

  /**
   * Applies the provider's mapping to what it says now: its grants become exactly what the rules give.
   * Returns whether any grant changed.
   */
  async applyMapping(
    user: UserRecord,
    provider: ProviderSettings,
    profile: Record<string, unknown>,
  ): Promise<void> {
    const { email, verified } = emailOf(provider, profile);
    const actor: Actor = {
      kind: "user",
      userId: user.id,
      name: user.name,
      via: "oidc",
      provider: provider.id,
    };
    const mapped = mapIdentity(provider.rules, {
      groups: groupsOf(profile[provider.groupsClaim]),
      email,
      emailVerified: verified,
    });
    const missing = await this.deps.grants.applyProviderGrants(user, oidcSource(provider.id), mapped, actor);
    if (missing.length > 0)
      this.deps.logger.warn(
        { provider: provider.id, accounts: missing },
        "a mapping rule names accounts that do not exist; create them or fix the rules",
      );
  }

  /** Keeps the link's tokens, sealed, and schedules its next re-check (none for a public client). */
  async keep(
    userId: string,
    provider: ProviderSettings,
    subject: string,
    tokens: ProviderTokens,
  ): Promise<void> {
    const cipher = this.deps.cipher(provider.id);
    const now = this.deps.now();
    const seal = (value: string | null) => (cipher && value !== null ? cipher.seal(value) : null);
    await this.deps.links.save(
      {
        userId,
        providerId: provider.id,
        subject,
        refresh: seal(tokens.refresh),
        access: seal(tokens.access),
        accessExpiresAt: tokens.accessExpiresAt,
        confirmedAt: now,
      },
      this.deps.checkIntervalMs > 0 ? now + this.deps.checkIntervalMs : null,
    );
  }
}

/** Whether a person already signs in some way other than this provider: a password, or another provider. */
function signsInOtherwise(user: UserRecord, providerId: string): boolean {
  return user.passwordHash !== null || user.providers.some((id) => id !== providerId);
}
