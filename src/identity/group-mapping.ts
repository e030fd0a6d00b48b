// A provider's mapping rules, applied to what it says of a person at sign-in: their groups and their e-mail.
// Semantics (docs/sign-in.md#mapping-rules): a rule matches when the person is in any of its groups, or when
// their e-mail is verified and its domain is exactly one of the rule's domains; every matching rule applies;
// where several give roles in one account, or operator roles, the highest wins. The order of the rules
// changes nothing. A pure function, so that a table test can pin it down.

import {
  ACCOUNT_ROLES,
  type AccountRole,
  highest,
  OPERATOR_ROLES,
  type OperatorRole,
} from "../core/roles.js";

export interface MappingRule {
  groups?: readonly string[] | undefined;
  emailDomains?: readonly string[] | undefined;
  operator?: OperatorRole | undefined;
  account?: string | undefined;
  role?: AccountRole | undefined;
}

export interface ProviderIdentity {
  groups: readonly string[];
  /** Case-folded. */
  email: string | null;
  /** Whether the e-mail may be believed: email_verified, or the provider trusted to verify them. */
  emailVerified: boolean;
}

export interface Mapped {
  operator: OperatorRole | null;
  accounts: Map<string, AccountRole>;
}

function matches(rule: MappingRule, identity: ProviderIdentity): boolean {
  if (rule.groups?.some((group) => identity.groups.includes(group))) return true;
  if (!identity.emailVerified || identity.email === null || !rule.emailDomains) return false;
  const domain = identity.email.slice(identity.email.lastIndexOf("@") + 1);
  return rule.emailDomains.includes(domain);
}

export function mapIdentity(rules: readonly MappingRule[], identity: ProviderIdentity): Mapped {
  const operators: OperatorRole[] = [];
  const byAccount = new Map<string, AccountRole[]>();
  for (const rule of rules) {
    if (!matches(rule, identity)) continue;
    if (rule.operator) operators.push(rule.operator);
    if (rule.account && rule.role)
      byAccount.set(rule.account, [...(byAccount.get(rule.account) ?? []), rule.role]);
  }
  const accounts = new Map<string, AccountRole>();
  for (const [account, roles] of byAccount)
    accounts.set(account, highest(ACCOUNT_ROLES, roles) as AccountRole);
  return { operator: highest(OPERATOR_ROLES, operators), accounts };
}

/** The groups a claim carries: a list of strings, or one string; anything else is no group. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === "string") return [claim];
  if (Array.isArray(claim)) return claim.filter((group): group is string => typeof group === "string");
  return [];
}
