// SCIM's /Groups: the groups a client pushes, each by its displayName (unique here, case-insensitive) and
// externalId, with members who are users SCIM sees. A group is what the mapping rules of signIn.scim.provider
// see as a group name (its displayName, and its externalId — Entra ID's object id, as its groups claim names
// groups): membership changes bring the members' "scim" grants in line at once (changes.ts). Each request
// is checked whole before anything is written.

import { randomToken } from "../../auth/api-key.js";
import { GatewayError } from "../../core/errors.js";
import type { Actor } from "../../store/audit/audit-store.js";
import type { ScimGroupRecord, ScimStore } from "../../store/people/scim-store.js";
import type { UserStore } from "../../store/people/user-store.js";
import type { ScimChanges } from "./changes.js";
import { listResponse, type Page, pageItems, parseFilter } from "./query.js";
import { applyPatch, type GroupInput, groupInput, groupResource, scimInvalid } from "./resources.js";

const FILTERABLE = ["displayName", "externalId", "id", "members.value"] as const;
const GROUP_ID = /^grp_[0-9a-z]{20}$/;

export interface ScimGroupsDeps {
  userStore: UserStore;
  scim: ScimStore;
  changes: ScimChanges;
  now: () => number;
}

function notFound(id: string): GatewayError {
  return new GatewayError("scim_group_not_found", `Resource ${id} not found.`);
}

export class ScimGroups {
  constructor(private readonly deps: ScimGroupsDeps) {}

  private async found(id: string): Promise<ScimGroupRecord> {
    const group = GROUP_ID.test(id) ? await this.deps.scim.group(id) : null;
    if (!group) throw notFound(id);
    return group;
  }

  /** The group as SCIM shows it; its members unless `withMembers` is false. */
  async resource(base: string, group: ScimGroupRecord, withMembers = true): Promise<Record<string, unknown>> {
    if (!withMembers) return groupResource(base, group, null);
    const members = [];
    for (const id of await this.deps.scim.members(group.id)) {
      const user = await this.deps.userStore.get(id);
      if (user) members.push({ id, email: user.email });
    }
    return groupResource(base, group, members);
  }

  async get(base: string, id: string, withMembers: boolean): Promise<Record<string, unknown>> {
    return this.resource(base, await this.found(id), withMembers);
  }

  async list(
    base: string,
    filter: string | undefined,
    page: Page,
    withMembers: boolean,
  ): Promise<Record<string, unknown>> {
    const conditions = parseFilter(filter, FILTERABLE);
    const { scim } = this.deps;
    const by = (attribute: string) => conditions.find((c) => c.attribute === attribute)?.value;
    const name = by("displayName");
    const externalId = by("externalId");
    const id = by("id");
    let ids: (string | null)[];
    if (name !== undefined) ids = [await scim.groupByName(name)];
    else if (externalId !== undefined) ids = [await scim.groupByExternalId(externalId)];
    else if (id !== undefined) ids = [GROUP_ID.test(id) ? id : null];
    else ids = await scim.groupIds();
    const matches: ScimGroupRecord[] = [];
    for (const groupId of ids) {
      const group = groupId === null ? null : await scim.group(groupId);
      if (!group) continue;
      let holds = true;
      for (const { attribute, value } of conditions) {
        if (attribute === "displayName") holds &&= group.displayName.toLowerCase() === value.toLowerCase();
        else if (attribute === "externalId") holds &&= group.externalId === value;
        else if (attribute === "id") holds &&= group.id === value;
        else holds &&= (await scim.members(group.id)).includes(value);
      }
      if (holds) matches.push(group);
    }
    const resources = await Promise.all(
      pageItems(matches, page).map((group) => this.resource(base, group, withMembers)),
    );
    return listResponse(resources, matches.length, page);
  }

  async create(base: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const input = groupInput(body);
    await this.check(input, null);
    const now = this.deps.now();
    const group: ScimGroupRecord = {
      id: `grp_${randomToken(20)}`,
      displayName: input.displayName,
      externalId: input.externalId,
      createdAt: now,
      modifiedAt: now,
    };
    await this.deps.changes.groupCreated(group, input.members, actor);
    return this.resource(base, group);
  }

  /** PUT /Groups/{id}: the group becomes what the body says, its members included. */
  async replace(base: string, id: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const before = await this.found(id);
    return this.resource(base, await this.apply(before, groupInput(body), actor));
  }

  /** PATCH /Groups/{id}: Okta's and Entra ID's member adds and removes, renames. */
  async patch(id: string, body: unknown, actor: Actor): Promise<void> {
    const before = await this.found(id);
    const current = await this.resource("", before);
    await this.apply(before, groupInput(await applyPatch("Group", current, body)), actor);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    await this.deps.changes.groupDeleted(await this.found(id), actor);
  }

  /** Refuses a name or externalId another group has, and members who are not users SCIM sees. */
  private async check(input: GroupInput, groupId: string | null): Promise<void> {
    const { scim, userStore } = this.deps;
    const named = await scim.groupByName(input.displayName);
    if (named !== null && named !== groupId)
      throw new GatewayError("scim_group_exists", `A group named ${input.displayName} already exists.`, {
        fields: { scimType: "uniqueness" },
      });
    if (input.externalId !== null) {
      const holder = await scim.groupByExternalId(input.externalId);
      if (holder !== null && holder !== groupId)
        throw new GatewayError("scim_group_exists", `A group has the externalId ${input.externalId}.`, {
          fields: { scimType: "uniqueness" },
        });
    }
    const deleted = await scim.deletedUsers();
    for (const member of input.members)
      if (!/^usr_[0-9a-z]{20}$/.test(member) || deleted.has(member) || !(await userStore.get(member)))
        throw scimInvalid("invalidValue", `members: ${JSON.stringify(member)} is not a user here.`);
  }

  private async apply(before: ScimGroupRecord, input: GroupInput, actor: Actor): Promise<ScimGroupRecord> {
    const current = new Set(await this.deps.scim.members(before.id));
    const wanted = new Set(input.members);
    const change = {
      add: [...wanted].filter((id) => !current.has(id)),
      remove: [...current].filter((id) => !wanted.has(id)),
    };
    await this.check({ ...input, members: change.add }, before.id);
    const group: ScimGroupRecord = {
      ...before,
      displayName: input.displayName,
      externalId: input.externalId,
      modifiedAt: this.deps.now(),
    };
    const renamed = group.displayName !== before.displayName || group.externalId !== before.externalId;
    if (renamed || change.add.length > 0 || change.remove.length > 0)
      await this.deps.changes.groupUpdated(group, before, change, actor);
    return renamed || change.add.length > 0 || change.remove.length > 0 ? group : before;
  }
}
