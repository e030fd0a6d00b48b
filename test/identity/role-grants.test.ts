// Who holds which role: grants by source in accounts and as operator, each change audited, a provider's
// mapping applied to its own source's grants only, and the members and memberships the grants make. On the
// suite's Redis.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let identity: Identity;
let ann: string;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store);
  await store.accountService.create({ id: "acme" }, ACTOR);
  await store.accountService.create({ id: "other" }, ACTOR);
  ann = (await identity.users.create({ email: "ann@example.com", name: "Ann" }, ACTOR)).id;
});
afterEach(() => store.close());

const grants = () => identity.grants;

describe("RoleGrants", () => {
  it("makes a member of the highest role any source grants, each change in the account's audit log", async () => {
    await grants().grant("acme", ann, "direct", "viewer", ACTOR);
    expect(await grants().grant("acme", ann, "oidc:corp", "owner", ACTOR)).toEqual({
      direct: "viewer",
      "oidc:corp": "owner",
    });
    expect(await grants().member("acme", ann)).toMatchObject({
      user: { id: ann },
      role: "owner",
      grants: { direct: "viewer", "oidc:corp": "owner" },
    });
    expect((await grants().members("acme")).map((m) => [m.user.name, m.role])).toEqual([["Ann", "owner"]]);
    expect(await grants().memberships(ann)).toEqual([
      { accountId: "acme", role: "owner", grants: { direct: "viewer", "oidc:corp": "owner" } },
    ]);
    const audit = (await store.accountService.audit("acme", 100)).filter((e) => e.action === "member.grant");
    expect(audit).toHaveLength(2);
  });

  it("removes a member's every grant, and refuses to remove or show one who is not a member", async () => {
    await grants().grant("acme", ann, "direct", "viewer", ACTOR);
    await grants().grant("acme", ann, "oidc:corp", "member", ACTOR);
    await grants().removeMember("acme", ann, ACTOR);
    expect(await grants().members("acme")).toEqual([]);
    expect(await grants().memberships(ann)).toEqual([]);
    await expect(grants().removeMember("acme", ann, ACTOR)).rejects.toMatchObject({
      code: "member_not_found",
    });
    await expect(grants().member("acme", ann)).rejects.toMatchObject({ code: "member_not_found" });
    expect(
      (await store.accountService.audit("acme", 100)).filter((e) => e.action === "member.remove"),
    ).toHaveLength(1);
  });

  it("gives a person the highest operator role any source grants, and takes one source's away", async () => {
    expect(await grants().grantOperator(ann, "direct", "operator-viewer", ACTOR)).toBe("operator-viewer");
    expect(await grants().grantOperator(ann, "oidc:corp", "operator", ACTOR)).toBe("operator");
    expect(await grants().grantOperator(ann, "oidc:corp", null, ACTOR)).toBe("operator-viewer");
    expect((await identity.users.find(ann)).operatorGrants).toEqual({ direct: "operator-viewer" });
  });

  it("applies a provider's mapping to its own source's grants only, and names the accounts that do not exist", async () => {
    const user = await identity.users.find(ann);
    await grants().grant("acme", ann, "direct", "viewer", ACTOR);
    await grants().grant("other", ann, "oidc:corp", "owner", ACTOR);
    const missing = await grants().applyProviderGrants(
      user,
      "oidc:corp",
      {
        operator: "operator-viewer",
        accounts: new Map([
          ["acme", "member"],
          ["ghost", "owner"],
        ]),
      },
      ACTOR,
    );
    expect(missing).toEqual(["ghost"]);
    // Left the group that gave "other"; "acme"'s direct grant stays beside the provider's.
    expect(await grants().memberships(ann)).toEqual([
      { accountId: "acme", role: "member", grants: { direct: "viewer", "oidc:corp": "member" } },
    ]);
    expect((await identity.users.find(ann)).operatorGrants).toEqual({ "oidc:corp": "operator-viewer" });
  });
});
