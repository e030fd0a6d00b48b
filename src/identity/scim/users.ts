// SCIM's /Users: our people as SCIM Users (the e-mail as userName, the display name as displayName; the
// externalId and name parts kept beside them). Every user is there — one a client matches by userName before
// creating it is taken over by that client — except those a client deleted. Each request is checked whole
// (schema, e-mail, uniqueness) before ScimChanges writes anything, so that a refused request writes nothing.

import { GatewayError } from "../../core/errors.js";
import type { Actor } from "../../store/audit/audit-store.js";
import type { ScimStore } from "../../store/people/scim-store.js";
import type { UserRecord } from "../../store/people/user-record.js";
import type { UserStore } from "../../store/people/user-store.js";
import { validateUserId } from "../users.js";
import type { ScimChanges } from "./changes.js";
import { listResponse, type Page, pageItems, parseFilter } from "./query.js";
import { applyPatch, type UserInput, userInput, userResource } from "./resources.js";

const FILTERABLE = ["userName", "externalId", "displayName", "id"] as const;

export interface ScimUsersDeps {
  userStore: UserStore;
  scim: ScimStore;
  changes: ScimChanges;
}

function notFound(id: string): GatewayError {
  return new GatewayError("user_not_found", `Resource ${id} not found.`);
}

export class ScimUsers {
  constructor(private readonly deps: ScimUsersDeps) {}

  /** A user SCIM sees, or 404. */
  private async visible(id: string): Promise<UserRecord> {
    let userId: string;
    try {
      userId = validateUserId(id);
    } catch {
      throw notFound(id);
    }
    const user = await this.deps.userStore.get(userId);
    if (!user || (await this.deps.scim.isDeleted(userId))) throw notFound(id);
    return user;
  }

  async resource(base: string, user: UserRecord): Promise<Record<string, unknown>> {
    const { scim } = this.deps;
    const [attributes, groupIds] = await Promise.all([scim.userAttributes(user.id), scim.groupsOf(user.id)]);
    const groups = (await Promise.all(groupIds.map((id) => scim.group(id)))).filter((g) => g !== null);
    return userResource(base, user, attributes, groups);
  }

  async get(base: string, id: string): Promise<Record<string, unknown>> {
    return this.resource(base, await this.visible(id));
  }

  async list(base: string, filter: string | undefined, page: Page): Promise<Record<string, unknown>> {
    const conditions = parseFilter(filter, FILTERABLE);
    const { userStore, scim } = this.deps;
    const by = (attribute: string) => conditions.find((c) => c.attribute === attribute)?.value;
    let candidates: (UserRecord | null)[];
    const userName = by("userName");
    const externalId = by("externalId");
    const id = by("id");
    if (userName !== undefined) candidates = [await userStore.byEmail(userName.trim().toLowerCase())];
    else if (externalId !== undefined) {
      const found = await scim.userByExternalId(externalId);
      candidates = [found === null ? null : await userStore.get(found)];
    } else if (id !== undefined)
      candidates = [/^usr_[0-9a-z]{20}$/.test(id) ? await userStore.get(id) : null];
    else if (conditions.length === 0) return this.page(base, page);
    else candidates = await userStore.list();
    const deleted = await scim.deletedUsers();
    const matches: UserRecord[] = [];
    for (const user of candidates) {
      if (user === null || deleted.has(user.id)) continue;
      const attributes = externalId === undefined ? null : await scim.userAttributes(user.id);
      const holds = conditions.every(({ attribute, value }) => {
        if (attribute === "userName") return user.email === value.trim().toLowerCase();
        if (attribute === "displayName") return user.name.toLowerCase() === value.toLowerCase();
        if (attribute === "id") return user.id === value;
        return attributes?.externalId === value;
      });
      if (holds) matches.push(user);
    }
    const resources = await Promise.all(pageItems(matches, page).map((user) => this.resource(base, user)));
    return listResponse(resources, matches.length, page);
  }

  /** Every user SCIM sees, one page: only the page's users are read. */
  private async page(base: string, page: Page): Promise<Record<string, unknown>> {
    const deleted = await this.deps.scim.deletedUsers();
    const ids = (await this.deps.userStore.ids()).filter((id) => !deleted.has(id));
    const users = await Promise.all(pageItems(ids, page).map((id) => this.deps.userStore.get(id)));
    const resources = await Promise.all(
      users.filter((user) => user !== null).map((user) => this.resource(base, user)),
    );
    return listResponse(resources, ids.length, page);
  }

  /**
   * POST /Users. An e-mail another user SCIM sees is 409 uniqueness; the e-mail of a user a client deleted
   * brings that user back (the same person, provisioned again).
   */
  async create(base: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const input = userInput(body);
    const existing = await this.deps.userStore.byEmail(input.email);
    if (existing && !(await this.deps.scim.isDeleted(existing.id)))
      throw new GatewayError("user_exists", `A user with the userName ${input.email} already exists.`, {
        fields: { scimType: "uniqueness" },
      });
    await this.checkExternalId(input, existing?.id ?? null);
    if (existing) return this.resource(base, await this.apply(existing, input, actor, true));
    const user = await this.deps.changes.userCreated(input, input.attributes, actor);
    if (input.active === false) await this.deps.changes.userDeactivated(user.id, actor);
    return this.resource(base, (await this.deps.userStore.get(user.id)) ?? user);
  }

  /** PUT /Users/{id}: the user becomes what the body says (attributes it leaves out are cleared). */
  async replace(base: string, id: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const user = await this.visible(id);
    const input = userInput(body);
    return this.resource(base, await this.apply(user, input, actor, false));
  }

  /** PATCH /Users/{id}, in Okta's shape or Entra ID's. */
  async patch(base: string, id: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const user = await this.visible(id);
    const current = await this.resource(base, user);
    const input = userInput(await applyPatch("User", current, body));
    return this.resource(base, await this.apply(user, input, actor, false));
  }

  /** DELETE /Users/{id}: ended at once, and seen no more (404 from now on). */
  async delete(id: string, actor: Actor): Promise<void> {
    const user = await this.visible(id);
    const attributes = await this.deps.scim.userAttributes(user.id);
    await this.deps.changes.userDeleted(user, attributes?.externalId ?? null, actor);
  }

  private async checkExternalId(input: UserInput, userId: string | null): Promise<void> {
    const externalId = input.attributes.externalId;
    if (externalId === null) return;
    const holder = await this.deps.scim.userByExternalId(externalId);
    if (holder !== null && holder !== userId && !(await this.deps.scim.isDeleted(holder)))
      throw new GatewayError("scim_conflict", `Another user has the externalId ${externalId}.`, {
        fields: { scimType: "uniqueness" },
      });
  }

  /** Checks, then makes a user what `input` says: e-mail, name, SCIM attributes, active or not. */
  private async apply(
    user: UserRecord,
    input: UserInput,
    actor: Actor,
    revived: boolean,
  ): Promise<UserRecord> {
    const { userStore, scim, changes } = this.deps;
    if (input.email !== user.email) {
      const holder = await userStore.byEmail(input.email);
      if (holder && holder.id !== user.id)
        throw new GatewayError("user_exists", `Another user has the userName ${input.email}.`, {
          fields: { scimType: "uniqueness" },
        });
    }
    await this.checkExternalId(input, user.id);
    const before = await scim.userAttributes(user.id);
    if (input.email !== user.email || input.name !== user.name)
      await changes.userUpdated(user.id, { email: input.email, name: input.name }, actor);
    if (revived || !sameAttributes(before, input.attributes))
      await changes.userAttributesSet(user.id, input.attributes, before, actor);
    if (user.status === "active" && input.active === false) await changes.userDeactivated(user.id, actor);
    if (user.status === "disabled" && (input.active === true || (revived && input.active === undefined)))
      await changes.userReactivated(user.id, actor);
    return (await userStore.get(user.id)) ?? user;
  }
}

function sameAttributes(
  before: Parameters<typeof sameShape>[0] | null,
  after: Parameters<typeof sameShape>[0],
): boolean {
  return before !== null && sameShape(before) === sameShape(after);
}

function sameShape(attributes: {
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formatted: string | null;
  emails: unknown[];
}): string {
  const { externalId, givenName, familyName, formatted, emails } = attributes;
  return JSON.stringify([externalId, givenName, familyName, formatted, emails]);
}
