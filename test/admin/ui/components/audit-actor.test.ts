// The audit log names the person behind each change: a provider's name, a password, a token of theirs, or
// the legacy credentials of entries written before people signed in; in both languages, for every action.

import { describe, expect, it } from "vitest";
import { auditHeadline, whoText } from "../../../../src/admin/ui/components/audit-actor.js";
import { MESSAGES } from "../../../../src/admin/ui/i18n/lookup.js";
import { ACCOUNT_AUDIT_ACTIONS, USER_AUDIT_ACTIONS } from "../../../../src/store/audit/audit-schema.js";

const providers = new Map([["keycloak", "Keycloak"]]);
const anna = { user_id: "usr_a", name: "Anna Petrova" };

describe("who made a change", () => {
  it("is the person and how they signed in, or the legacy credential", () => {
    expect(
      whoText("en", { actor: "user:usr_a", by: { ...anna, via: "oidc", provider: "keycloak" } }, providers),
    ).toBe("Anna Petrova (via Keycloak)");
    expect(whoText("en", { actor: "user:usr_a", by: { ...anna, via: "password" } }, providers)).toBe(
      "Anna Petrova (password)",
    );
    expect(
      whoText(
        "en",
        { actor: "token:tok_1", by: { ...anna, via: "token", token_id: "tok_1", token_name: "ci-deploy" } },
        providers,
      ),
    ).toBe("token “ci-deploy” of Anna Petrova");
    expect(whoText("en", { actor: "admin" }, providers)).toBe("operator (admin token)");
    expect(whoText("en", { actor: "cli" }, providers)).toBe("operator (CLI)");
    expect(whoText("ru", { actor: "account:acme" }, providers)).toBe(
      MESSAGES.ru["audit.actor.account"].replace("{id}", "acme"),
    );
  });
});

describe("an entry as a sentence", () => {
  it("names the person and what they did", () => {
    const by = { ...anna, via: "oidc" as const, provider: "keycloak" };
    expect(
      auditHeadline(
        "en",
        { actor: "user:usr_a", by, action: "key.revoke", key_id: "key_1", details: { name: "prod" } },
        providers,
      ),
    ).toBe("Anna Petrova (via Keycloak) revoked the key “prod”.");
    expect(
      auditHeadline(
        "ru",
        { actor: "user:usr_a", by, action: "key.revoke", key_id: "key_1", details: { name: "prod" } },
        providers,
      ),
    ).toBe("Anna Petrova (через Keycloak): ключ «prod» отозван.");
    expect(
      auditHeadline(
        "en",
        {
          actor: "token:tok_1",
          by: { ...anna, via: "token", token_id: "tok_1", token_name: "ci-deploy" },
          action: "key.create",
          key_id: "key_2",
          details: { name: "ci" },
        },
        providers,
      ),
    ).toBe("token “ci-deploy” of Anna Petrova created the key “ci”.");
    // An old entry: no `by`, the actor says it all; a change that does not name the key names its id.
    expect(
      auditHeadline(
        "en",
        { actor: "admin", action: "key.update", key_id: "key_3", details: { rpm: 5 } },
        providers,
      ),
    ).toBe("operator (admin token) changed the key key_3.");
    expect(
      auditHeadline(
        "en",
        {
          actor: "user:usr_a",
          by,
          action: "member.grant",
          details: { user_id: "usr_b", name: "Boris", source: "direct", role: "owner" },
        },
        providers,
      ),
    ).toBe("Anna Petrova (via Keycloak) gave Boris the role owner.");
    expect(
      auditHeadline(
        "en",
        { actor: "admin", action: "user.disable", user_id: "usr_b", details: { email: "boris@example.com" } },
        providers,
        new Map([["usr_b", "Boris"]]),
      ),
    ).toBe("operator (admin token) disabled the user Boris.");
  });

  it("has a sentence in both languages for every action the logs record", () => {
    for (const action of new Set([...ACCOUNT_AUDIT_ACTIONS, ...USER_AUDIT_ACTIONS]))
      for (const lang of ["en", "ru"] as const) {
        const text = auditHeadline(
          lang,
          { actor: "cli", action, details: { name: "x", email: "e", role: "viewer" } },
          providers,
        );
        expect(text, `${lang} ${action}`).not.toContain("{");
        expect(text, `${lang} ${action}`).not.toContain(action);
      }
  });
});
