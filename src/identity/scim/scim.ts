// SCIM 2.0 provisioning (RFC 7643, 7644), built once per process beside the rest of the identity layer: the
// SCIM tokens, /Users and /Groups, and the one place their changes are written (changes.ts). The HTTP side
// is src/admin/scim-handler.ts; docs/scim.md says what is supported and how Okta and Entra ID are set up.

import type { Logger } from "pino";
import type { IdentityEvents } from "../../core/channels.js";
import type { ScimAuditEntry } from "../../store/audit/audit-schema.js";
import type { Stores } from "../../store/stores.js";
import type { ApiTokens } from "../api-tokens.js";
import type { RoleGrants } from "../role-grants.js";
import type { ProviderSettings } from "../settings.js";
import type { Users } from "../users.js";
import { ScimChanges } from "./changes.js";
import { ScimGroups } from "./groups.js";
import { ScimTokens } from "./tokens.js";
import { ScimUsers } from "./users.js";

export interface Scim {
  tokens: ScimTokens;
  users: ScimUsers;
  groups: ScimGroups;
  /** Where SCIM's changes, and the requests refused, are published (identity events). */
  events: IdentityEvents;
  /** The SCIM log: tokens made and revoked, groups pushed, renamed and deleted; newest first. */
  audit(limit: number): Promise<ScimAuditEntry[]>;
}

export interface ScimOptions {
  users: Users;
  grants: RoleGrants;
  apiTokens: ApiTokens;
  /** The provider whose mapping rules SCIM groups are matched against (signIn.scim.provider), if any. */
  provider: ProviderSettings | null;
  events: IdentityEvents;
  logger: Logger;
}

export function buildScim(stores: Stores, options: ScimOptions): Scim {
  const { now } = stores;
  const changes = new ScimChanges({
    users: options.users,
    grants: options.grants,
    userStore: stores.users,
    apiTokens: options.apiTokens,
    apiTokenStore: stores.apiTokens,
    scim: stores.scim,
    scimTokens: stores.scimTokens,
    rules: options.provider?.rules ?? [],
    events: options.events,
    logger: options.logger,
    now,
  });
  return {
    tokens: new ScimTokens(stores.scimTokens, changes, now),
    users: new ScimUsers({ userStore: stores.users, scim: stores.scim, changes }),
    groups: new ScimGroups({ userStore: stores.users, scim: stores.scim, changes, now }),
    events: options.events,
    audit: (limit) => stores.audit.listScim(limit),
  };
}
