// SCIM tokens on the suite's Redis with the test's clock: made with a value of their own shape shown once and
// kept only as its hash, authenticating a SCIM client (its last use noted) until revoked; every other header —
// none, not a bearer, an API key or admin token, a revoked or made-up SCIM token — refused with 401
// scim_unauthorized, each saying why. Made and revoked are in the SCIM log and reported as scim.token events.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey } from "../../../src/auth/api-key.js";
import type { Identity } from "../../../src/identity/identity.js";
import { SCIM_TOKEN_PREFIX } from "../../../src/identity/scim/tokens.js";
import { ACTOR } from "../../helpers/actor.js";
import { identityEventsOf } from "../../helpers/channels.js";
import { testIdentity } from "../../helpers/identity.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
let identity: Identity;
let recorded: ReturnType<typeof identityEventsOf>;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, { adminToken: "admin-token-of-the-operator-0123456789" });
  recorded = identityEventsOf(identity.events);
});
afterEach(() => {
  recorded.stop();
  store.close();
});

describe("ScimTokens", () => {
  it("are made with a value shown once, kept as its hash, and authenticate as the SCIM client named", async () => {
    const { record, value } = await identity.scim.tokens.create("Okta", ACTOR);
    expect(value).toMatch(/^sk-tunnel-scim-[0-9a-f]{64}$/);
    expect(value.startsWith(SCIM_TOKEN_PREFIX)).toBe(true);
    expect(record).toMatchObject({
      name: "Okta",
      hash: hashApiKey(value),
      createdAt: store.clock.now(),
      lastUsedAt: null,
    });
    expect(record.id).toMatch(/^scim_/);
    expect(JSON.stringify(await identity.scim.tokens.list())).not.toContain(value);
    const keys = await store.allKeys();
    for (const key of keys) expect(key).not.toContain(value);

    store.clock.advance(5000);
    expect(await identity.scim.tokens.authenticate(`Bearer ${value}`)).toEqual({
      kind: "scim",
      tokenId: record.id,
      tokenName: "Okta",
    });
    expect((await identity.scim.tokens.list())[0]?.lastUsedAt).toBe(store.clock.now());
    expect(recorded.seen).toEqual([{ event: "scim.token", outcome: "created", tokenId: record.id }]);
  });

  it("refuse a name that is no name", async () => {
    await expect(identity.scim.tokens.create("", ACTOR)).rejects.toMatchObject({ status: 400 });
    await expect(identity.scim.tokens.create(7, ACTOR)).rejects.toMatchObject({ status: 400 });
    expect(await identity.scim.tokens.list()).toEqual([]);
  });

  it("stop authenticating the moment they are revoked, logged in the SCIM log; an unknown id is 404", async () => {
    const { record, value } = await identity.scim.tokens.create("Okta", ACTOR);
    expect((await identity.scim.tokens.revoke(record.id, ACTOR)).id).toBe(record.id);
    await expect(identity.scim.tokens.authenticate(`Bearer ${value}`)).rejects.toMatchObject({
      code: "scim_unauthorized",
      status: 401,
      message: "Unknown SCIM token: it was revoked, or never issued.",
    });
    await expect(identity.scim.tokens.revoke(record.id, ACTOR)).rejects.toMatchObject({
      code: "scim_token_not_found",
    });
    expect(await identity.scim.tokens.list()).toEqual([]);
    expect((await identity.scim.audit(10)).map((entry) => [entry.action, entry.details])).toEqual([
      ["scim.token.revoke", { token_id: record.id, name: "Okta" }],
      ["scim.token.create", { token_id: record.id, name: "Okta" }],
    ]);
    expect(recorded.seen.map((event) => event.outcome)).toEqual(["created", "revoked"]);
  });

  it("refuse every other credential with 401 scim_unauthorized, saying why", async () => {
    const refused = (header: string | undefined) => identity.scim.tokens.authenticate(header);
    await expect(refused(undefined)).rejects.toMatchObject({ code: "scim_unauthorized" });
    await expect(refused("Basic dXNlcjpwYXNz")).rejects.toMatchObject({ code: "scim_unauthorized" });
    for (const other of [
      "admin-token-of-the-operator-0123456789",
      `sk-tunnel-${"a".repeat(64)}`,
      `${SCIM_TOKEN_PREFIX}${"A".repeat(64)}`,
      `${SCIM_TOKEN_PREFIX}${"a".repeat(63)}`,
    ])
      await expect(refused(`Bearer ${other}`)).rejects.toMatchObject({
        code: "scim_unauthorized",
        message: "This is not a SCIM token: make one with `scim-tokens create`.",
      });
    await expect(refused(`Bearer ${SCIM_TOKEN_PREFIX}${"a".repeat(64)}`)).rejects.toMatchObject({
      message: "Unknown SCIM token: it was revoked, or never issued.",
    });
  });

  it("are refused by the admin API's credentials: a SCIM token is good for SCIM only", async () => {
    const { value } = await identity.scim.tokens.create("Okta", ACTOR);
    await expect(identity.credentials.fromBearer(`Bearer ${value}`)).rejects.toMatchObject({ status: 401 });
  });
});
