// Sessions: a 256-bit id handed out once and kept only as its hash; the idle timeout slides with each
// request, the absolute one does not; a person's sessions are listed and revoked, one or all. On the suite's
// Redis, with the test's clock.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { sha256 } from "../../src/identity/secrets.js";
import { sessionHandle } from "../../src/identity/sessions.js";
import { ACTOR } from "../helpers/actor.js";
import { testIdentity } from "../helpers/identity.js";
import { openStore, type TestStore } from "../helpers/store.js";

const MINUTE = 60_000;
let store: TestStore;
let identity: Identity;
let userId: string;
beforeEach(async () => {
  store = await openStore();
  identity = testIdentity(store, { signIn: { sessions: { idleMinutes: 30, absoluteHours: 2 } } });
  userId = (await identity.users.create({ email: "ann@example.com" }, ACTOR)).id;
});
afterEach(() => store.close());

const start = () =>
  identity.sessions.start(userId, { via: "password" }, { userAgent: "Firefox", address: "10.0.0.1" });

describe("Sessions", () => {
  it("hand out a random id kept only as its hash, with a CSRF token derived from it", async () => {
    const { id, session } = await start();
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(session.hash).toBe(sha256(id));
    expect(session.csrfToken).toMatch(/^[\w-]{43}$/);
    expect(session.csrfToken).not.toBe(id);
    expect(await store.allKeys()).toContain(`${store.prefix}session:${sha256(id)}`);
    expect((await identity.sessions.resume(id)).csrfToken).toBe(session.csrfToken);
  });

  it("slide their idle timeout with each request, and end at the absolute timeout whatever happens", async () => {
    const { id } = await start();
    for (let i = 0; i < 4; i++) {
      store.clock.advance(29 * MINUTE);
      await identity.sessions.resume(id);
    }
    store.clock.advance(4 * MINUTE - 1);
    await identity.sessions.resume(id);
    store.clock.advance(1);
    await expect(identity.sessions.resume(id)).rejects.toMatchObject({ code: "session_expired" });

    const idle = await start();
    store.clock.advance(30 * MINUTE);
    await expect(identity.sessions.resume(idle.id)).rejects.toMatchObject({ code: "session_expired" });
    // Once timed out, it is gone for good.
    store.clock.advance(-30 * MINUTE);
    await expect(identity.sessions.resume(idle.id)).rejects.toMatchObject({ code: "session_expired" });
  });

  it("are listed, revoked one by one (only by their person) or all at once", async () => {
    const [a, b, c] = [await start(), await start(), await start()];
    expect((await identity.sessions.list(userId)).map((s) => s.hash).sort()).toEqual(
      [a.session.hash, b.session.hash, c.session.hash].sort(),
    );
    const other = await identity.users.create({ email: "bob@example.com" }, ACTOR);
    await expect(identity.sessions.revoke(other.id, sessionHandle(a.session.hash))).rejects.toMatchObject({
      code: "session_not_found",
    });
    // The hash Redis keeps the session under is not its handle.
    await expect(identity.sessions.revoke(userId, a.session.hash)).rejects.toMatchObject({
      code: "session_not_found",
    });
    await identity.sessions.revoke(userId, sessionHandle(a.session.hash));
    await expect(identity.sessions.resume(a.id)).rejects.toMatchObject({ code: "session_expired" });
    expect(await identity.sessions.revokeAll(userId)).toBe(2);
    await expect(identity.sessions.resume(b.id)).rejects.toMatchObject({ code: "session_expired" });
    expect(await identity.sessions.list(userId)).toEqual([]);
  });
});
