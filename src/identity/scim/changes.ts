// Every change a SCIM client makes, one method per kind, each writing the change with its audit entry (the
// SCIM token as the actor): the one place where "something changed through SCIM" happens, so that whatever
// else must follow a change (a log line, a metric, an event) is added here and nowhere else. The users and
// groups services decide what changes and check it all before the first write (a refused request writes
// nothing); this module only writes.

import type { Logger } from "pino";
import type { IdentityEvents } from "../../core/channels.js";
import { SCIM } from "../../core/roles.js";
import { type Actor, scimAuditEntry, userAuditEntry } from "../../store/audit/audit-store.js";
import type { ApiTokenStore } from "../../store/people/api-token-store.js";
import type { ScimGroupRecord, ScimStore, ScimUserAttributes } from "../../store/people/scim-store.js";
import type { ScimTokenRecord, ScimTokenStore } from "../../store/people/scim-token-store.js";
import type { UserRecord } from "../../store/people/user-record.js";
import type { UserStore } from "../../store/people/user-store.js";
import type { ApiTokens } from "../api-tokens.js";
import { type MappingRule, mapIdentity } from "../group-mapping.js";
import type { RoleGrants } from "../role-grants.js";
import type { Users } from "../users.js";

export interface ScimChangesDeps {
  users: Users;
  grants: Pick<RoleGrants, "applyProviderGrants">;
  userStore: UserStore;
  apiTokens: ApiTokens;
  apiTokenStore: ApiTokenStore;
  scim: ScimStore;
  scimTokens: ScimTokenStore;
  /** The mapping rules group memberships are matched against (signIn.scim.provider's), or none. */
  rules: readonly MappingRule[];
  /** Each change is published as an identity event (its log line and metric), beside its audit entry. */
  events: IdentityEvents;
  logger: Logger;
  now: () => number;
}

export class ScimChanges {
  constructor(private readonly deps: ScimChangesDeps) {}

  async tokenCreated(token: ScimTokenRecord, actor: Actor): Promise<void> {
    const details = { token_id: token.id, name: token.name };
    await this.deps.scimTokens.create(
      token,
      scimAuditEntry(actor, token.createdAt, "scim.token.create", details),
    );
    this.deps.events.publish("scim.token", "created", { tokenId: token.id });
  }

  async tokenRevoked(token: ScimTokenRecord, actor: Actor): Promise<void> {
    const details = { token_id: token.id, name: token.name };
    await this.deps.scimTokens.delete(
      token,
      scimAuditEntry(actor, this.deps.now(), "scim.token.revoke", details),
    );
    this.deps.events.publish("scim.token", "revoked", { tokenId: token.id });
  }

  /** A user provisioned: created (user.create in their log), with their SCIM attributes. */
  async userCreated(
    input: { email: string; name: string },
    attributes: Omit<ScimUserAttributes, "modifiedAt">,
    actor: Actor,
  ): Promise<UserRecord> {
    const user = await this.deps.users.create({ email: input.email, name: input.name }, actor);
    await this.userAttributesSet(user.id, attributes, null, actor);
    this.deps.events.publish("scim.user.create", "success", { userId: user.id });
    return user;
  }

  /**
   * A user's SCIM attributes (externalId, name parts, e-mails) written; a deleted user is seen again. A change
   * of them is a user.update naming the attributes that changed (`before` null: the user was just created,
   * which user.create records).
   */
  async userAttributesSet(
    userId: string,
    attributes: Omit<ScimUserAttributes, "modifiedAt">,
    before: ScimUserAttributes | null,
    actor: Actor,
  ): Promise<void> {
    await this.deps.scim.setUserAttributes(
      userId,
      { ...attributes, modifiedAt: this.deps.now() },
      before?.externalId ?? null,
    );
    const changed = changedAttributes(before, attributes);
    if (before === null || changed.length === 0) return;
    const user = await this.deps.userStore.require(userId);
    const audit = userAuditEntry(actor, this.deps.now(), "user.update", userId, {
      email: user.email,
      attributes: changed,
    });
    await this.deps.userStore.update(userId, {}, audit);
    this.deps.events.publish("scim.user.update", "success", { userId, detail: changed.join(", ") });
  }

  /** A user's e-mail or display name changed (user.update). */
  async userUpdated(
    userId: string,
    changes: { email?: string; name?: string },
    actor: Actor,
  ): Promise<UserRecord> {
    const user = await this.deps.users.update(userId, changes, actor);
    this.deps.events.publish("scim.user.update", "success", {
      userId,
      detail: Object.keys(changes).join(", "),
    });
    return user;
  }

  /**
   * A user deactivated (`active: false`): disabled, so that every credential of theirs is refused from now
   * on; their sessions end and their API tokens are revoked, each revocation in their log.
   */
  async userDeactivated(userId: string, actor: Actor): Promise<void> {
    await this.deps.users.disable(userId, actor);
    const tokens = await this.deps.apiTokenStore.list(userId);
    for (const token of tokens) await this.deps.apiTokens.revoke(userId, token.id, actor);
    this.deps.events.publish("scim.user.deactivate", "success", { userId, count: tokens.length });
  }

  async userReactivated(userId: string, actor: Actor): Promise<void> {
    await this.deps.users.enable(userId, actor);
  }

  /**
   * A user deleted: deactivated, out of every SCIM group (so their SCIM grants go), and no longer seen by
   * SCIM; the record stays, disabled, for the audit trail (user.delete in their log).
   */
  async userDeleted(user: UserRecord, externalId: string | null, actor: Actor): Promise<void> {
    if (user.status === "active") await this.userDeactivated(user.id, actor);
    for (const groupId of await this.deps.scim.groupsOf(user.id)) {
      const group = await this.deps.scim.group(groupId);
      if (group) await this.membersChanged(group, group, { add: [], remove: [user.id] }, "", actor);
    }
    await this.deps.scim.markDeleted(user.id, externalId);
    const audit = userAuditEntry(actor, this.deps.now(), "user.delete", user.id, { email: user.email });
    await this.deps.userStore.update(user.id, {}, audit);
    this.deps.events.publish("scim.user.delete", "success", { userId: user.id });
  }

  groupCreated(group: ScimGroupRecord, members: readonly string[], actor: Actor): Promise<void> {
    const audit = scimAuditEntry(actor, group.createdAt, "scim.group.create", groupDetails(group));
    return this.membersChanged(group, null, { add: members, remove: [] }, audit, actor);
  }

  /** A group renamed or its externalId changed, and/or members added and removed. */
  groupUpdated(
    group: ScimGroupRecord,
    before: ScimGroupRecord,
    change: { add: readonly string[]; remove: readonly string[] },
    actor: Actor,
  ): Promise<void> {
    const renamed = group.displayName !== before.displayName || group.externalId !== before.externalId;
    const audit = renamed
      ? scimAuditEntry(actor, group.modifiedAt, "scim.group.update", {
          ...groupDetails(group),
          previous_display_name: before.displayName,
        })
      : "";
    return this.membersChanged(group, before, change, audit, actor, renamed);
  }

  async groupDeleted(group: ScimGroupRecord, actor: Actor): Promise<void> {
    const members = await this.deps.scim.members(group.id);
    await this.deps.scim.deleteGroup(
      group,
      scimAuditEntry(actor, this.deps.now(), "scim.group.delete", groupDetails(group)),
    );
    for (const userId of members) await this.membership(userId, group, "user.group.remove", actor);
    for (const userId of members) await this.grantsFollow(userId, actor);
  }

  /**
   * Writes a group and its member changes, records each membership in the person's log, and brings the
   * SCIM grants of everyone concerned (every member, when the group's names changed) in line at once.
   */
  private async membersChanged(
    group: ScimGroupRecord,
    before: ScimGroupRecord | null,
    change: { add: readonly string[]; remove: readonly string[] },
    audit: string,
    actor: Actor,
    renamed = false,
  ): Promise<void> {
    await this.deps.scim.saveGroup(group, before, change, audit);
    if (change.add.length + change.remove.length > 0)
      this.deps.events.publish("scim.group.members", "success", {
        detail: group.displayName,
        count: change.add.length + change.remove.length,
      });
    for (const userId of change.add) await this.membership(userId, group, "user.group.add", actor);
    for (const userId of change.remove) await this.membership(userId, group, "user.group.remove", actor);
    const concerned = new Set([...change.add, ...change.remove]);
    if (renamed) for (const userId of await this.deps.scim.members(group.id)) concerned.add(userId);
    for (const userId of concerned) await this.grantsFollow(userId, actor);
  }

  private membership(
    userId: string,
    group: ScimGroupRecord,
    action: "user.group.add" | "user.group.remove",
    actor: Actor,
  ): Promise<void> {
    const audit = userAuditEntry(actor, this.deps.now(), action, userId, {
      group_id: group.id,
      group: group.displayName,
    });
    return this.deps.userStore.update(userId, {}, audit);
  }

  /**
   * A person's SCIM grants become exactly what the mapping rules give their SCIM groups now (each group by its
   * displayName and its externalId, as the provider's groups claim would name it); grants of every other
   * source stay as they are.
   */
  private async grantsFollow(userId: string, actor: Actor): Promise<void> {
    const user = await this.deps.userStore.get(userId);
    if (!user) return;
    const names: string[] = [];
    for (const groupId of await this.deps.scim.groupsOf(userId)) {
      const group = await this.deps.scim.group(groupId);
      if (group) names.push(group.displayName, ...(group.externalId ? [group.externalId] : []));
    }
    const mapped = mapIdentity(this.deps.rules, { groups: names, email: null, emailVerified: false });
    const missing = await this.deps.grants.applyProviderGrants(user, SCIM, mapped, actor);
    if (missing.length > 0)
      this.deps.logger.warn(
        { accounts: missing },
        "a mapping rule SCIM groups matched names accounts that do not exist; create them or fix the rules",
      );
  }
}

/** The SCIM attributes that differ, by their SCIM names. */
function changedAttributes(
  before: Omit<ScimUserAttributes, "modifiedAt"> | null,
  after: Omit<ScimUserAttributes, "modifiedAt">,
): string[] {
  const names = {
    externalId: "externalId",
    givenName: "name.givenName",
    familyName: "name.familyName",
    formatted: "name.formatted",
    emails: "emails",
  } as const;
  return (Object.keys(names) as (keyof typeof names)[])
    .filter((key) => JSON.stringify(before?.[key] ?? null) !== JSON.stringify(after[key]))
    .map((key) => names[key]);
}

function groupDetails(group: ScimGroupRecord): Record<string, unknown> {
  return { group_id: group.id, display_name: group.displayName, external_id: group.externalId };
}
