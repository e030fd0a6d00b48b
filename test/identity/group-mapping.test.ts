// A provider's mapping rules: a table of cases (groups, e-mail domains, verified or not, several rules for one
// account) and properties over random rules and people (fast-check): the order of the rules changes nothing,
// more groups never lower a role, every matching rule's role is reached and nothing is given that no
// matching rule gives, and an unverified e-mail never matches a domain.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ACCOUNT_ROLES, type AccountRole, atLeast, OPERATOR_ROLES } from "../../src/core/roles.js";
import {
  groupsOf,
  type MappingRule,
  mapIdentity,
  type ProviderIdentity,
} from "../../src/identity/group-mapping.js";

const RULES: MappingRule[] = [
  { groups: ["platform-admins"], operator: "operator" },
  { groups: ["finance", "auditors"], operator: "operator-viewer" },
  { groups: ["team-acme"], account: "acme", role: "member" },
  { groups: ["acme-leads"], account: "acme", role: "owner" },
  { emailDomains: ["acme.example"], account: "acme", role: "viewer" },
  { groups: ["team-globex"], emailDomains: ["globex.example"], account: "globex", role: "member" },
];

function person(
  groups: string[],
  email: string | null = "x@corp.example",
  emailVerified = true,
): ProviderIdentity {
  return { groups, email, emailVerified };
}

function mapped(identity: ProviderIdentity) {
  const { operator, accounts } = mapIdentity(RULES, identity);
  return { operator, accounts: Object.fromEntries(accounts) };
}

describe("mapIdentity", () => {
  it.each([
    ["nobody's groups", person([]), { operator: null, accounts: {} }],
    ["one group, one account", person(["team-acme"]), { operator: null, accounts: { acme: "member" } }],
    [
      "the highest role of one account",
      person(["team-acme", "acme-leads"]),
      { operator: null, accounts: { acme: "owner" } },
    ],
    ["any group of a rule", person(["auditors"]), { operator: "operator-viewer", accounts: {} }],
    [
      "the highest operator role",
      person(["finance", "platform-admins"]),
      { operator: "operator", accounts: {} },
    ],
    [
      "a verified e-mail's domain",
      person([], "Ann@acme.example".toLowerCase()),
      { operator: null, accounts: { acme: "viewer" } },
    ],
    [
      "an unverified e-mail's domain: nothing",
      person([], "ann@acme.example", false),
      { operator: null, accounts: {} },
    ],
    ["a subdomain is another domain", person([], "ann@eu.acme.example"), { operator: null, accounts: {} }],
    [
      "a domain and a group together",
      person(["team-acme"], "ann@acme.example"),
      { operator: null, accounts: { acme: "member" } },
    ],
    [
      "a rule matched by its domain or its group",
      person([], "bob@globex.example"),
      { operator: null, accounts: { globex: "member" } },
    ],
    [
      "operator and accounts at once",
      person(["platform-admins", "team-globex", "acme-leads"]),
      { operator: "operator", accounts: { acme: "owner", globex: "member" } },
    ],
    ["group names match exactly", person(["Team-Acme", "team-acme "]), { operator: null, accounts: {} }],
    ["no e-mail at all", person(["team-acme"], null), { operator: null, accounts: { acme: "member" } }],
  ])("%s", (_name, identity, expected) => {
    expect(mapped(identity)).toEqual(expected);
  });

  it("reads a groups claim that is a list or one string, and nothing else", () => {
    expect(groupsOf(["a", 1, "b", null])).toEqual(["a", "b"]);
    expect(groupsOf("admins")).toEqual(["admins"]);
    expect(groupsOf(undefined)).toEqual([]);
    expect(groupsOf({ a: 1 })).toEqual([]);
  });
});

const GROUPS = ["g1", "g2", "g3", "g4"];
const DOMAINS = ["a.example", "b.example"];
const ACCOUNTS = ["acme", "globex", "initech"];

const rule: fc.Arbitrary<MappingRule> = fc
  .record({
    groups: fc.option(fc.subarray(GROUPS, { minLength: 1 }), { nil: undefined }),
    emailDomains: fc.option(fc.subarray(DOMAINS, { minLength: 1 }), { nil: undefined }),
    operator: fc.option(fc.constantFrom(...OPERATOR_ROLES), { nil: undefined }),
    grant: fc.option(
      fc.record({ account: fc.constantFrom(...ACCOUNTS), role: fc.constantFrom(...ACCOUNT_ROLES) }),
      {
        nil: undefined,
      },
    ),
  })
  .map(({ groups, emailDomains, operator, grant }) => ({
    groups,
    emailDomains,
    operator,
    account: grant?.account,
    role: grant?.role,
  }));

const identity: fc.Arbitrary<ProviderIdentity> = fc.record({
  groups: fc.subarray(GROUPS),
  email: fc.option(
    fc.constantFrom(...DOMAINS, "c.example").map((domain) => `p@${domain}`),
    { nil: null },
  ),
  emailVerified: fc.boolean(),
});

function matches(r: MappingRule, who: ProviderIdentity): boolean {
  const byGroup = r.groups?.some((g) => who.groups.includes(g)) ?? false;
  const byDomain =
    who.emailVerified &&
    who.email !== null &&
    (r.emailDomains?.includes(who.email.split("@")[1] as string) ?? false);
  return byGroup || byDomain;
}

describe("mapIdentity's properties", () => {
  it("does not depend on the order of the rules", () => {
    fc.assert(
      fc.property(
        fc
          .array(rule, { maxLength: 8 })
          .chain((rules) =>
            fc.tuple(fc.constant(rules), fc.shuffledSubarray(rules, { minLength: rules.length })),
          ),
        identity,
        ([rules, shuffled], who) => {
          const a = mapIdentity(rules, who);
          const b = mapIdentity(shuffled, who);
          expect(b.operator).toBe(a.operator);
          expect(Object.fromEntries(b.accounts)).toEqual(Object.fromEntries(a.accounts));
        },
      ),
    );
  });

  it("never lowers a role when the person is in more groups", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), identity, fc.subarray(GROUPS), (rules, who, more) => {
        const before = mapIdentity(rules, who);
        const after = mapIdentity(rules, { ...who, groups: [...new Set([...who.groups, ...more])] });
        if (before.operator) expect(atLeast(OPERATOR_ROLES, after.operator, before.operator)).toBe(true);
        for (const [account, role] of before.accounts)
          expect(atLeast(ACCOUNT_ROLES, after.accounts.get(account) ?? null, role)).toBe(true);
      }),
    );
  });

  it("gives exactly the highest role of the matching rules, and nothing no matching rule gives", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), identity, (rules, who) => {
        const result = mapIdentity(rules, who);
        const matching = rules.filter((r) => matches(r, who));
        for (const account of ACCOUNTS) {
          const roles = matching.filter((r) => r.account === account).map((r) => r.role as AccountRole);
          const best = ACCOUNT_ROLES.find((role) => roles.includes(role)) ?? null;
          expect(result.accounts.get(account) ?? null).toBe(best);
        }
        const operators = matching.map((r) => r.operator).filter((o) => o !== undefined);
        expect(result.operator).toBe(OPERATOR_ROLES.find((role) => operators.includes(role)) ?? null);
        if (!who.emailVerified) {
          const byGroupsOnly = mapIdentity(
            rules.map((r) => ({ ...r, emailDomains: undefined })),
            who,
          );
          expect(Object.fromEntries(result.accounts)).toEqual(Object.fromEntries(byGroupsOnly.accounts));
        }
      }),
    );
  });
});
