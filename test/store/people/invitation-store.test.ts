// An account's pending invitations on the suite's Redis: added, replaced and removed by their script (each
// change in the account's audit log), read one by one and listed oldest first.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEntry } from "../../../src/store/audit/audit-store.js";
import type { InvitationRecord } from "../../../src/store/people/invitation-store.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

const invitation = (id: string, createdAt: number, email = `${id}@example.com`): InvitationRecord => ({
  id,
  accountId: "acme",
  email,
  role: "member",
  hash: `hash-of-${id}`,
  createdAt,
  expiresAt: createdAt + 7 * 86_400_000,
  invitedBy: "cli",
});
const audit = (action: "invitation.create" | "invitation.revoke", id: string) =>
  auditEntry(ACTOR, store.clock.now(), action, "acme", { invitation: id });

describe("invitations", () => {
  it("are added, read back, and listed oldest first", async () => {
    const invitations = store.stores.invitations;
    expect(
      await invitations.set("acme", "inv_b", invitation("inv_b", 2_000), audit("invitation.create", "b")),
    ).toBeNull();
    await invitations.set("acme", "inv_a", invitation("inv_a", 1_000), audit("invitation.create", "a"));
    expect(await invitations.get("acme", "inv_b")).toEqual(invitation("inv_b", 2_000));
    expect((await invitations.list("acme")).map((i) => i.id)).toEqual(["inv_a", "inv_b"]);
    expect(await invitations.get("acme", "inv_z")).toBeNull();
    expect(await invitations.list("other")).toEqual([]);
  });

  it("are replaced and removed, each change answering the invitation it replaced", async () => {
    const invitations = store.stores.invitations;
    const first = invitation("inv_a", 1_000, "first@example.com");
    await invitations.set("acme", "inv_a", first, audit("invitation.create", "a"));
    const second = invitation("inv_a", 3_000, "second@example.com");
    expect(await invitations.set("acme", "inv_a", second, audit("invitation.create", "a"))).toEqual(first);
    expect(await invitations.set("acme", "inv_a", null, audit("invitation.revoke", "a"))).toEqual(second);
    expect(await invitations.get("acme", "inv_a")).toBeNull();
    expect(await invitations.set("acme", "inv_a", null, audit("invitation.revoke", "a"))).toBeNull();
  });

  it("record every change in the account's audit log", async () => {
    await store.stores.invitations.set(
      "acme",
      "inv_a",
      invitation("inv_a", 1),
      audit("invitation.create", "a"),
    );
    await store.stores.invitations.set("acme", "inv_a", null, audit("invitation.revoke", "a"));
    const actions = (await store.stores.audit.list("acme", 10)).map((entry) => entry.action);
    expect(actions.sort()).toEqual(["invitation.create", "invitation.revoke"]);
  });
});
