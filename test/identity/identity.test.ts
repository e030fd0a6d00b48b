// The identity layer as buildIdentity assembles it over the suite's Redis: one IdentityEvents shared by every
// part (the one given, or a new one), the operator's admin token known to the credentials, and the parts
// sharing one clock and one store, so that what one part writes the others see.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { IdentityEvents } from "../../src/core/channels.js";
import { buildIdentity } from "../../src/identity/identity.js";
import { identitySettings } from "../../src/identity/settings.js";
import { ACTOR } from "../helpers/actor.js";
import { identityEventsOf } from "../helpers/channels.js";
import { captureLogs } from "../helpers/logs.js";
import { openStore, type TestStore } from "../helpers/store.js";

const PASSWORD = "correct horse battery staple";
let store: TestStore;
beforeEach(async () => {
  store = await openStore();
});
afterEach(() => store.close());

function build(options: { events?: IdentityEvents; adminToken?: string } = {}) {
  const config = configSchema.parse({ signIn: { local: { enabled: true } } });
  return buildIdentity(store.stores, identitySettings(config), {
    adminToken: options.adminToken,
    logger: captureLogs().logger,
    ...(options.events && { events: options.events }),
  });
}

describe("buildIdentity", () => {
  it("publishes every part's events on the IdentityEvents it is given", async () => {
    const events = new IdentityEvents();
    const recorded = identityEventsOf(events);
    try {
      const identity = build({ events });
      expect(identity.events).toBe(events);
      expect(identity.scim.events).toBe(events);
      const ann = await identity.users.create({ email: "ann@example.com", password: PASSWORD }, ACTOR);
      await identity.sessions.start(ann.id, { via: "password" }, { userAgent: "", address: "" });
      await identity.passwords.signIn("ann@example.com", "wrong password!", "192.0.2.1").catch(() => {});
      await identity.users.disable(ann.id, ACTOR);
      await identity.invitations.accept("made-up", {}, null).catch(() => {});
      expect(recorded.seen.map(({ event, outcome }) => `${event} ${outcome}`)).toEqual([
        "sign_in.password wrong_password",
        "session.revoke user_disabled",
        "invitation.accept invalid_link",
      ]);
    } finally {
      recorded.stop();
    }
  });

  it("makes an IdentityEvents of its own when given none, so that two builds hear only their own", async () => {
    const one = build();
    const two = build();
    expect(one.events).toBeInstanceOf(IdentityEvents);
    expect(one.events).not.toBe(two.events);
    const heard = identityEventsOf(two.events);
    try {
      await one.passwords.signIn("nobody@example.com", PASSWORD, "192.0.2.1").catch(() => {});
      expect(heard.seen).toEqual([]);
    } finally {
      heard.stop();
    }
  });

  it("knows the operator's admin token, and none when none is given", async () => {
    const withToken = build({ adminToken: "admin-token-of-the-operator-0123456789" });
    const principal = await withToken.credentials.fromBearer("Bearer admin-token-of-the-operator-0123456789");
    expect(principal.operatorRole).toBe("operator");
    await expect(
      build().credentials.fromBearer("Bearer admin-token-of-the-operator-0123456789"),
    ).rejects.toMatchObject({ status: 401 });
  });

  it("has its parts share one store and one clock: a link issued by one expires by the store's clock", async () => {
    const identity = build();
    const ann = await identity.users.create({ email: "ann@example.com" }, ACTOR);
    const url = await identity.passwords.passwordLink(ann.id, "https://gw.example.com");
    const token = url.split("/").at(-1) as string;
    store.clock.advance(identity.settings.passwordLinkMs);
    await expect(identity.passwords.usePasswordLink(token, PASSWORD)).rejects.toMatchObject({
      code: "password_link_invalid",
    });
  });
});
