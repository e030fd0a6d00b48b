// Who made an audited change, and the entry as a sentence naming them: "Anna Petrova (via Keycloak) revoked
// the key “prod”", "token “ci-deploy” of Anna Petrova created the key “ci”", "operator (admin token) topped
// up the balance". Entries written before people could sign in have no `by`: their actor (admin, cli,
// account:<id>) says all there is. Russian sentences name the person and then what was done, without a verb
// of theirs, whose past tense would have to guess their gender. Pure, for the unit tests.

import type { AuditPerson } from "../api/types.js";
import { type Lang, type MessageKey, translate, type Values } from "../i18n/lookup.js";

/** What of an entry the sentence reads: the account's and the people's logs alike. */
export interface AuditLine {
  actor: string;
  by?: AuditPerson | undefined;
  action: string;
  key_id?: string | undefined;
  user_id?: string | undefined;
  details: Record<string, unknown>;
}

/**
 * An actor as recorded (admin, cli, account:<id>, user:<id>, token:<id>, scim:<id>) in words; a person's name when
 * `names` knows their id.
 */
export function actorName(lang: Lang, actor: string, names: ReadonlyMap<string, string> = new Map()): string {
  if (actor === "admin") return translate(lang, "audit.actor.admin");
  if (actor === "cli") return translate(lang, "audit.actor.cli");
  if (actor === "anonymous") return translate(lang, "audit.actor.anonymous");
  if (actor.startsWith("account:")) return translate(lang, "audit.actor.account", { id: actor.slice(8) });
  if (actor.startsWith("user:"))
    return names.get(actor.slice(5)) ?? translate(lang, "audit.actor.user", { id: actor.slice(5) });
  if (actor.startsWith("token:")) return translate(lang, "audit.actor.token", { id: actor.slice(6) });
  if (actor.startsWith("scim:")) return translate(lang, "audit.actor.scim", { id: actor.slice(5) });
  return actor;
}

/** Who, as a reader wants it: the person's name and how they signed in, or the legacy credential. */
export function whoText(
  lang: Lang,
  line: Pick<AuditLine, "actor" | "by">,
  providers: ReadonlyMap<string, string>,
): string {
  const by = line.by;
  if (!by) return actorName(lang, line.actor);
  switch (by.via) {
    case "oidc":
      return translate(lang, "audit.by.oidc", {
        name: by.name,
        provider: (by.provider && providers.get(by.provider)) ?? by.provider ?? "",
      });
    case "password":
      return translate(lang, "audit.by.password", { name: by.name });
    case "token":
      return translate(lang, "audit.by.token", { name: by.name, token: by.token_name ?? by.token_id ?? "" });
  }
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : value == null ? "" : String(value);

/** The role as the dashboard names it (owner, operator-viewer, …), or the value as recorded. */
function roleName(lang: Lang, role: unknown): string {
  const known = ["owner", "member", "viewer", "operator", "operator-viewer"];
  return typeof role === "string" && known.includes(role)
    ? translate(lang, `role.${role}` as MessageKey)
    : text(role);
}

/** Why a sign-in failed, in words: the reasons the server records. */
function reasonText(lang: Lang, reason: unknown): string {
  return reason === "wrong_password" || reason === "user_disabled"
    ? translate(lang, `audit.reason.${reason}`)
    : text(reason);
}

/** The message and its values that say what an entry did, by its action. */
function deed(
  lang: Lang,
  line: AuditLine,
  names: ReadonlyMap<string, string>,
  providers: ReadonlyMap<string, string>,
): { key: MessageKey; values: Values } {
  const d = line.details;
  const key =
    d.name !== undefined ? translate(lang, "audit.v.quoted", { text: text(d.name) }) : text(line.key_id);
  const person = text(d.name) || text(d.email) || text(d.user_id) || text(line.user_id);
  // A person's own log: the entry's user, by name where the list of people tells it.
  const user = names.get(text(line.user_id)) ?? (text(d.email) || text(line.user_id));
  switch (line.action) {
    case "key.create":
    case "key.update":
    case "key.rotate":
    case "key.disable":
    case "key.enable":
    case "key.revoke":
    case "key.sharing.update":
      return { key: `audit.did.${line.action}`, values: { key } };
    case "member.grant":
      return { key: "audit.did.member.grant", values: { person, role: roleName(lang, d.role) } };
    case "member.remove":
      return { key: "audit.did.member.remove", values: { person } };
    case "invitation.create":
    case "invitation.accept":
    case "invitation.revoke":
      return {
        key: `audit.did.${line.action}`,
        values: { email: text(d.email), role: roleName(lang, d.role) },
      };
    case "token.create":
    case "token.revoke":
      return {
        key: `audit.did.${line.action}`,
        values: { name: text(d.name), role: roleName(lang, d.role) },
      };
    case "user.create":
    case "user.update":
    case "user.disable":
    case "user.enable":
    case "user.password":
    case "user.delete":
      return { key: `audit.did.${line.action}`, values: { person: user } };
    case "user.group.add":
    case "user.group.remove":
      return { key: `audit.did.${line.action}`, values: { person: user, group: text(d.group) } };
    case "user.sign_in":
    case "user.unlock":
      return { key: `audit.did.${line.action}`, values: { person: user, address: text(d.address) } };
    case "user.sign_in_failed":
      return {
        key: "audit.did.user.sign_in_failed",
        values: { person: user, address: text(d.address), reason: reasonText(lang, d.reason) },
      };
    case "user.lockout":
      return { key: "audit.did.user.lockout", values: { person: user, seconds: text(d.seconds) } };
    case "user.sessions_revoked":
      return { key: "audit.did.user.sessions_revoked", values: { person: user, count: text(d.count) } };
    case "user.provider_check":
      return d.outcome === "roles_changed"
        ? {
            key: "audit.did.user.provider_check.roles_changed",
            values: { person: user, roles: text(d.roles) || translate(lang, "audit.roles.none") },
          }
        : { key: "audit.did.user.provider_check.refused", values: { person: user, reason: text(d.reason) } };
    case "user.provider_link": {
      const provider = providers.get(text(d.provider)) ?? text(d.provider);
      return d.allowed_until !== undefined
        ? { key: "audit.did.user.provider_link.allowed", values: { person: user, provider } }
        : { key: "audit.did.user.provider_link", values: { person: user, provider } };
    }
    case "user.operator":
      return d.role === null || d.role === undefined
        ? { key: "audit.did.user.operator.removed", values: { person: user } }
        : { key: "audit.did.user.operator", values: { person: user, role: roleName(lang, d.role) } };
    case "account.create":
    case "account.topup":
    case "account.token.create":
    case "account.token.revoke":
    case "account.alerts.update":
    case "account.webhook.set":
    case "account.webhook.remove":
    case "account.sharing.update":
    case "account.budgets.update":
      return { key: `audit.did.${line.action}`, values: {} };
    default:
      return { key: "audit.did.other", values: { action: line.action } };
  }
}

/**
 * The entry as one sentence naming who did it: "Anna Petrova (via Keycloak) revoked the key “prod”." The
 * sentence begins with who as they are written (a name, or "operator (admin token)"); `names` gives the
 * people of a person's own log their names.
 */
export function auditHeadline(
  lang: Lang,
  line: AuditLine,
  providers: ReadonlyMap<string, string>,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  const { key, values } = deed(lang, line, names, providers);
  const sentence = translate(lang, key, { ...values, who: whoText(lang, line, providers) });
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
