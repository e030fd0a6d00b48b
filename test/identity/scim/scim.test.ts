// SCIM as buildScim assembles it on the suite's Redis: groups matched against the rules of the provider named
// by signIn.scim.provider only (none named: a group grants nothing), the identity layer's one IdentityEvents,
// and the SCIM log read newest first up to the limit asked.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildScim } from "../../../src/identity/scim/scim.js";
import type { Actor } from "../../../src/store/audit/audit-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { testIdentity } from "../../helpers/identity.js";
import { captureLogs } from "../../helpers/logs.js";
import { RULES } from "../../helpers/scim.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const OKTA: Actor = { kind: "scim", tokenId: "scim_test", tokenName: "Okta" };
const CORP = { id: "corp", name: "Corp", issuer: "http://127.0.0.1:9/", clientId: "gw", rules: RULES };
let store: TestStore;
beforeEach(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme" }, ACTOR);
});
afterEach(() => store.close());

async function engineeringGrants(scimProvider: string | undefined) {
  const identity = testIdentity(store, {
    signIn: { providers: [CORP], ...(scimProvider && { scim: { provider: scimProvider } }) },
  });
  const ann = await identity.users.create({ email: `ann-${scimProvider ?? "none"}@example.com` }, ACTOR);
  await identity.scim.groups.create(
    "",
    { schemas: [GROUP], displayName: `Engineering`, members: [{ value: ann.id }] },
    OKTA,
  );
  const roles = await identity.grants.memberships(ann.id);
  await identity.scim.groups.delete(
    (
      (await identity.scim.groups.list(
        "",
        'displayName eq "Engineering"',
        { startIndex: 1, count: 1 },
        false,
      )) as {
        Resources: { id: string }[];
      }
    ).Resources[0]?.id as string,
    OKTA,
  );
  return roles.map((m) => [m.accountId, m.role]);
}

describe("buildScim", () => {
  it("matches groups against the rules of the provider SCIM is set to, and grants nothing without one", async () => {
    expect(await engineeringGrants("corp")).toEqual([["acme", "member"]]);
    expect(await engineeringGrants(undefined)).toEqual([]);
  });

  it("publishes on the identity layer's events, and reads the SCIM log newest first up to the limit", async () => {
    const identity = testIdentity(store);
    expect(identity.scim.events).toBe(identity.events);
    const scim = buildScim(store.stores, {
      users: identity.users,
      grants: identity.grants,
      apiTokens: identity.tokens,
      provider: null,
      events: identity.events,
      logger: captureLogs().logger,
    });
    for (const name of ["one", "two", "three"]) {
      await scim.tokens.create(name, ACTOR);
      store.clock.advance(1000);
    }
    expect((await scim.audit(2)).map((entry) => entry.details.name)).toEqual(["three", "two"]);
    expect(await identity.scim.audit(10)).toHaveLength(3);
  });
});
