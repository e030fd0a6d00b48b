// SCIM's wire shapes (RFC 7643) and ours: a person as a SCIM User and a SCIM group as a Group, out; a User or
// a Group a client sends, in — checked against the core schemas by scimmy (types, required attributes,
// mutability), then reduced to what we keep. What clients send that the RFC does not allow but they send all
// the same is put right first, in one place (`normalise*`): Entra ID's "True"/"False" strings for `active`,
// its enterprise extension, its members to remove listed in a value rather than a path's filter; Okta's
// password. Attributes we do not keep (title, phoneNumbers, addresses, the enterprise extension…) are
// accepted and dropped.

import SCIMMY from "scimmy";
import { GatewayError } from "../../core/errors.js";
import { validateName } from "../../core/validate.js";
import type { ScimEmail, ScimGroupRecord, ScimUserAttributes } from "../../store/people/scim-store.js";
import type { UserRecord } from "../../store/people/user-record.js";
import { validateEmail } from "../users.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** Longest externalId, name part or group displayName kept; most e-mails a user's `emails` may list. */
const MAX_TEXT = 256;
const MAX_EMAILS = 10;

/** A refusal in SCIM's terms: 400 with its scimType (RFC 7644 §3.12). */
export function scimInvalid(scimType: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { fields: { scimType } });
}

/** A user as a SCIM client sees it. */
export function userResource(
  base: string,
  user: UserRecord,
  scim: ScimUserAttributes | null,
  groups: readonly ScimGroupRecord[],
): Record<string, unknown> {
  const name = {
    ...(scim?.givenName && { givenName: scim.givenName }),
    ...(scim?.familyName && { familyName: scim.familyName }),
    ...(scim?.formatted && { formatted: scim.formatted }),
  };
  const emails: ScimEmail[] =
    scim && scim.emails.length > 0 ? scim.emails : [{ value: user.email, type: "work", primary: true }];
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(scim?.externalId && { externalId: scim.externalId }),
    userName: user.email,
    ...(Object.keys(name).length > 0 && { name }),
    displayName: user.name,
    active: user.status === "active",
    emails,
    groups: groups.map((group) => ({
      value: group.id,
      display: group.displayName,
      $ref: `${base}/Groups/${group.id}`,
    })),
    meta: {
      resourceType: "User",
      created: new Date(user.createdAt).toISOString(),
      lastModified: new Date(Math.max(user.createdAt, scim?.modifiedAt ?? 0)).toISOString(),
      location: `${base}/Users/${user.id}`,
    },
  };
}

/** A group as a SCIM client sees it; members left out when it asks for them not to be (Entra ID does). */
export function groupResource(
  base: string,
  group: ScimGroupRecord,
  members: readonly { id: string; email: string }[] | null,
): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.externalId && { externalId: group.externalId }),
    displayName: group.displayName,
    ...(members && {
      members: members.map((m) => ({ value: m.id, display: m.email, $ref: `${base}/Users/${m.id}` })),
    }),
    meta: {
      resourceType: "Group",
      created: new Date(group.createdAt).toISOString(),
      lastModified: new Date(group.modifiedAt).toISOString(),
      location: `${base}/Groups/${group.id}`,
    },
  };
}

/** What we keep of a User a client sends. */
export interface UserInput {
  email: string;
  name: string;
  /** Absent from the body: active on creation, unchanged by a PUT (which never brings a person back unasked). */
  active: boolean | undefined;
  attributes: Omit<ScimUserAttributes, "modifiedAt">;
}

export interface GroupInput {
  displayName: string;
  externalId: string | null;
  members: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Entra ID sends booleans as "True" and "False" (a known fault of its PATCH); anything else stays. */
function booleanOf(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const lower = value.toLowerCase();
  return lower === "true" ? true : lower === "false" ? false : value;
}

/** A resource as sent, put right: string booleans, schema extensions (kept by nobody here), a password. */
function normaliseResource(body: Record<string, unknown>): Record<string, unknown> {
  const resource: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const lower = key.toLowerCase();
    if (lower.startsWith("urn:") || lower === "password") continue;
    resource[key] = lower === "active" ? booleanOf(value) : value;
  }
  if (Array.isArray(resource.schemas))
    resource.schemas = resource.schemas.filter((id) => id === USER_SCHEMA || id === GROUP_SCHEMA);
  return resource;
}

/** A PatchOp as sent, put right the same way: its operations on extensions dropped. */
export function normalisePatch(body: unknown): { schemas: string[]; Operations: Record<string, unknown>[] } {
  if (!isObject(body)) throw scimInvalid("invalidSyntax", "A PATCH body must be a PatchOp JSON object.");
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimInvalid("invalidValue", "A PatchOp needs Operations: a list of at least one operation.");
  const kept: Record<string, unknown>[] = [];
  operations.forEach((operation, i) => {
    if (!isObject(operation))
      throw scimInvalid("invalidSyntax", `Operation ${i + 1} of the PatchOp is not an object.`);
    const path = operation.path;
    if (typeof path === "string" && path.toLowerCase().startsWith("urn:") && !isCorePath(path)) return;
    if (typeof path === "string" && path.toLowerCase() === "active")
      kept.push({ ...operation, value: booleanOf(operation.value) });
    else if (isMembersRemoval(operation))
      // Entra ID names the members to remove in a value list; RFC 7644 names them in the path's filter.
      for (const member of operation.value as { value?: unknown }[])
        kept.push({ op: "remove", path: `members[value eq ${JSON.stringify(String(member?.value))}]` });
    else if (path === undefined && isObject(operation.value))
      kept.push({ ...operation, value: normaliseResource(operation.value) });
    else kept.push(operation);
  });
  const schemas = Array.isArray(body.schemas) ? (body.schemas as string[]) : [];
  return { schemas, Operations: kept };
}

function isMembersRemoval(operation: Record<string, unknown>): boolean {
  return (
    typeof operation.op === "string" &&
    operation.op.toLowerCase() === "remove" &&
    typeof operation.path === "string" &&
    operation.path.toLowerCase() === "members" &&
    Array.isArray(operation.value)
  );
}

function isCorePath(path: string): boolean {
  const lower = path.toLowerCase();
  return lower.startsWith(USER_SCHEMA.toLowerCase()) || lower.startsWith(GROUP_SCHEMA.toLowerCase());
}

/** Any failure of scimmy's checks as a SCIM 400 naming what is wrong. */
export function asScimError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof SCIMMY.Types.Error)
    return scimInvalid(error.scimType ?? "invalidValue", error.message);
  if (error instanceof TypeError) return scimInvalid("invalidValue", error.message);
  return error as GatewayError;
}

function text(value: unknown, what: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") throw scimInvalid("invalidValue", `${what} must be a string.`);
  const trimmed = value.trim();
  if (trimmed.length > MAX_TEXT)
    throw scimInvalid("invalidValue", `${what} must be at most ${MAX_TEXT} characters long.`);
  return trimmed === "" ? null : trimmed;
}

/** A User as a client sends it (POST, PUT) or as a PATCH leaves it: checked, and reduced to what we keep. */
export function userInput(body: unknown): UserInput {
  if (!isObject(body)) throw scimInvalid("invalidSyntax", "A User must be a JSON object.");
  let resource: Record<string, unknown>;
  try {
    resource = JSON.parse(JSON.stringify(new SCIMMY.Schemas.User(normaliseResource(body), "in")));
  } catch (error) {
    throw asScimError(error);
  }
  let email: string;
  try {
    email = validateEmail(resource.userName);
  } catch {
    throw scimInvalid(
      "invalidValue",
      `userName must be the person's e-mail address; got ${JSON.stringify(resource.userName)}. Map an e-mail attribute (Okta: email; Entra ID: userPrincipalName or mail) to userName.`,
    );
  }
  const name = isObject(resource.name) ? resource.name : {};
  const givenName = text(name.givenName, "name.givenName");
  const familyName = text(name.familyName, "name.familyName");
  const formatted = text(name.formatted, "name.formatted");
  let displayName: string;
  try {
    displayName = validateName(
      text(resource.displayName, "displayName") ??
        formatted ??
        ([givenName, familyName].filter(Boolean).join(" ") || email),
      "displayName",
    );
  } catch (error) {
    throw scimInvalid("invalidValue", (error as Error).message);
  }
  const emails = Array.isArray(resource.emails) ? (resource.emails as ScimEmail[]) : [];
  if (emails.length > MAX_EMAILS)
    throw scimInvalid("invalidValue", `emails may list at most ${MAX_EMAILS} addresses.`);
  return {
    email,
    name: displayName,
    active: typeof resource.active === "boolean" ? resource.active : undefined,
    attributes: {
      externalId: text(resource.externalId, "externalId"),
      givenName,
      familyName,
      formatted,
      emails: emails.map((e) => ({
        value: text(e.value, "emails.value") ?? "",
        ...(e.type !== undefined && { type: text(e.type, "emails.type") ?? "" }),
        ...(e.primary !== undefined && { primary: e.primary === true }),
      })),
    },
  };
}

/** A Group as a client sends it (POST, PUT) or as a PATCH leaves it. */
export function groupInput(body: unknown): GroupInput {
  if (!isObject(body)) throw scimInvalid("invalidSyntax", "A Group must be a JSON object.");
  let resource: Record<string, unknown>;
  try {
    resource = JSON.parse(JSON.stringify(new SCIMMY.Schemas.Group(normaliseResource(body), "in")));
  } catch (error) {
    throw asScimError(error);
  }
  const displayName = text(resource.displayName, "displayName");
  if (displayName === null) throw scimInvalid("invalidValue", "A Group needs a displayName.");
  const members = Array.isArray(resource.members) ? (resource.members as { value?: unknown }[]) : [];
  return {
    displayName,
    externalId: text(resource.externalId, "externalId"),
    members: [...new Set(members.map((m) => text(m.value, "members.value")).filter((v) => v !== null))],
  };
}

/** Applies a PatchOp (Okta's and Entra ID's shapes alike) to a resource; returns the resource it leaves. */
export async function applyPatch(
  kind: "User" | "Group",
  current: Record<string, unknown>,
  body: unknown,
): Promise<Record<string, unknown>> {
  const message = normalisePatch(body);
  if (message.Operations.length === 0) return current;
  const { groups: _, meta: __, ...base } = current;
  try {
    const patch = new SCIMMY.Messages.PatchOp(message as never);
    const schema = kind === "User" ? new SCIMMY.Schemas.User(base) : new SCIMMY.Schemas.Group(base);
    const patched = await patch.apply(schema);
    return patched === undefined ? current : JSON.parse(JSON.stringify(patched));
  } catch (error) {
    throw asScimError(error);
  }
}
