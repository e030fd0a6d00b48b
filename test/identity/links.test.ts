// One-time links (invitations, set-password links) on the suite's Redis with the clock moved by hand: a link is
// found by its token while valid and of its kind, taken once, cancelled by its hash, and its URL names the page.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Links, linkUrl } from "../../src/identity/links.js";
import { sha256 } from "../../src/identity/secrets.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let links: Links;
beforeEach(async () => {
  store = await openStore();
  links = new Links(store.stores.links, store.clock.now);
});
afterEach(() => store.close());

const invitation = () =>
  ({
    kind: "invitation",
    accountId: "acme",
    invitationId: "inv_1",
    expiresAt: store.clock.now() + 60_000,
  }) as const;

describe("one-time links", () => {
  it("are found by their token, never stored by it, and stay valid while peeked at", async () => {
    const { token, hash } = await links.issue(invitation());
    expect(hash).toBe(sha256(token));
    expect((await store.allKeys()).join(" ")).not.toContain(token);
    expect(await links.peek(token, "invitation")).toEqual(invitation());
    expect(await links.peek(token, "invitation")).toEqual(invitation());
  });

  it("are refused as another kind, once expired, or for a token that names nothing", async () => {
    const { token } = await links.issue(invitation());
    await expect(links.peek(token, "password")).rejects.toMatchObject({ code: "password_link_invalid" });
    await expect(links.peek("x".repeat(101), "invitation")).rejects.toMatchObject({
      code: "invitation_invalid",
    });
    await expect(links.peek(42, "invitation")).rejects.toMatchObject({ code: "invitation_invalid" });
    await expect(links.peek("unknown", "invitation")).rejects.toMatchObject({ code: "invitation_invalid" });
    store.clock.advance(60_000);
    await expect(links.peek(token, "invitation")).rejects.toMatchObject({ code: "invitation_invalid" });
  });

  it("are taken once, and cancelled by their hash", async () => {
    const first = await links.issue({
      kind: "password",
      userId: "usr_1",
      expiresAt: store.clock.now() + 60_000,
    });
    await links.take(first.token, "password");
    await expect(links.take(first.token, "password")).rejects.toMatchObject({
      code: "password_link_invalid",
    });
    const second = await links.issue(invitation());
    await links.cancel(second.hash);
    await expect(links.peek(second.token, "invitation")).rejects.toMatchObject({
      code: "invitation_invalid",
    });
  });

  it("lead to the dashboard's page of their kind", () => {
    expect(linkUrl("https://gw.example.com", "invitation", "tok")).toBe(
      "https://gw.example.com/#/invite/tok",
    );
    expect(linkUrl("https://gw.example.com", "password", "tok")).toBe(
      "https://gw.example.com/#/set-password/tok",
    );
  });
});
