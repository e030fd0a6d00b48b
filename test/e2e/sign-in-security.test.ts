// The sign-in's defences over real HTTP, each tested so that it fails without its defence: cross-site
// requests on the session cookie refused (a form posted from another site, a fetch from another origin,
// a call without x-csrf-token), a new session id at every sign-in (session fixation), the cookie's flags
// (__Host- and Secure over HTTPS), the 11th wrong password within a minute waiting (per e-mail and per
// address, an unknown e-mail answered exactly as a wrong password), an invitation used twice or after its
// expiry refused, and no password, session id or link token ever in Redis or the logs.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import type { RedisClient } from "../../src/store/connection/redis.js";
import { ACTOR } from "../helpers/actor.js";
import { parseSetCookie } from "../helpers/browser.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";

const PASSWORD = "correct-horse-battery-staple-7";
let t: TestGateway;
let identity: Identity;
let admin: string;

beforeAll(async () => {
  // Behind a trusted proxy (the test itself), each test signs in from an address of its own.
  t = await startTestGateway({
    config: { signIn: { local: { enabled: true } }, security: { trustedProxies: ["127.0.0.1/32"] } } as never,
  });
  identity = testIdentity(t.store);
  admin = t.gateway.adminUrl as string;
  await t.store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterAll(async () => {
  await t?.close();
});

async function newPerson(email: string, role: "owner" | "member" = "owner") {
  const user = await identity.users.create({ email, name: email.split("@")[0] }, ACTOR);
  await identity.users.setPassword(user.id, PASSWORD, ACTOR);
  await identity.grants.grant("acme", user.id, "direct", role, ACTOR);
  return user;
}

/** Signs in with the password form, as the dashboard does: returns the cookie and the CSRF token. */
async function signIn(email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const res = await fetch(`${admin}/auth/password`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      origin: admin,
      "x-forwarded-for": "198.51.100.7",
      ...headers,
    },
    body: JSON.stringify({ email, password }),
  });
  const body = await json(res);
  const set = res.headers.getSetCookie().map(parseSetCookie);
  const session = set.findLast((c) => c.name.endsWith("tg_session"));
  return { res, body, session, cookie: session ? `${session.name}=${session.value}` : "" };
}

describe("cross-site requests on the session cookie", () => {
  it("refuses a form posted from another site and a fetch from another origin, and lets the dashboard's own through", async () => {
    await newPerson("csrf@example.com");
    const { cookie, body } = await signIn("csrf@example.com");
    const key = (await t.store.keyService.create({ accountId: "acme", name: "k" }, ACTOR)).record;
    const revoke = `${admin}/admin/v1/accounts/acme/keys/${key.id}/revoke`;

    // <form method="post" action="…/revoke"> on evil.example, submitted: no fields, the cookie attached.
    const form = await fetch(revoke, {
      method: "POST",
      headers: {
        cookie,
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": "0",
      },
    });
    expect(form.status).toBe(403);
    expect((await json(form)).error.code).toBe("csrf_refused");
    // fetch(…, { credentials: "include" }) from evil.example, even with a token it somehow learnt.
    const crossFetch = await fetch(revoke, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "x-csrf-token": body.csrf_token },
    });
    expect(crossFetch.status).toBe(403);
    // An older browser that sends no Origin on a cross-site form, but says so in Sec-Fetch-Site.
    const noOrigin = await fetch(revoke, {
      method: "POST",
      headers: { cookie, "sec-fetch-site": "cross-site" },
    });
    expect(noOrigin.status).toBe(403);
    // Nothing says where it comes from.
    expect((await fetch(revoke, { method: "POST", headers: { cookie } })).status).toBe(403);
    // Same origin without the token.
    const noToken = await fetch(revoke, { method: "POST", headers: { cookie, origin: admin } });
    expect(noToken.status).toBe(403);
    expect((await json(noToken)).error.message).toMatch(/x-csrf-token/);
    expect((await t.store.keyService.show(key.id)).revokedAt).toBeNull();

    const own = await fetch(revoke, {
      method: "POST",
      headers: { cookie, origin: admin, "x-csrf-token": body.csrf_token },
    });
    expect(own.status).toBe(200);
    expect((await t.store.keyService.show(key.id)).revokedAt).not.toBeNull();
    // Reads need no token; a Referer of the dashboard stands in for a missing Origin.
    expect((await fetch(`${admin}/admin/v1/me`, { headers: { cookie } })).status).toBe(200);
    const referred = await fetch(`${admin}/admin/v1/me/sessions/revoke-all`, {
      method: "POST",
      headers: { cookie, referer: `${admin}/#/me`, "x-csrf-token": body.csrf_token },
    });
    expect(referred.status).toBe(200);
  });

  it("refuses a sign-in posted from another site (login CSRF)", async () => {
    await newPerson("login-csrf@example.com");
    const { res, session } = await signIn("login-csrf@example.com", PASSWORD, {
      origin: "https://evil.example",
    });
    expect(res.status).toBe(403);
    expect(session).toBeUndefined();
  });
});

describe("sessions", () => {
  it("get a new id at every sign-in, the browser's earlier one ended (no session fixation)", async () => {
    await newPerson("fixation@example.com");
    await newPerson("attacker@example.com");
    // The attacker signs in and plants their own session id in the victim's browser.
    const planted = await signIn("attacker@example.com");
    const victim = await signIn("fixation@example.com", PASSWORD, { cookie: planted.cookie });
    expect(victim.res.status).toBe(200);
    expect(victim.res.headers.getSetCookie()).toHaveLength(1);
    expect(victim.session?.value).not.toBe(planted.session?.value);
    expect(victim.session?.value).toMatch(/^[\w-]{43}$/);
    // The planted id is worth nothing now, and the victim's is the victim's.
    expect((await fetch(`${admin}/admin/v1/me`, { headers: { cookie: planted.cookie } })).status).toBe(401);
    const me = await json(await fetch(`${admin}/admin/v1/me`, { headers: { cookie: victim.cookie } }));
    expect(me.user.email).toBe("fixation@example.com");
  });

  it("are set in an HttpOnly, SameSite=Lax cookie for the whole dashboard, without Secure on plain HTTP", async () => {
    await newPerson("flags@example.com");
    const { session } = await signIn("flags@example.com");
    expect(session?.name).toBe("tg_session");
    expect([...(session?.attributes.keys() ?? [])].sort()).toEqual(["httponly", "path", "samesite"]);
    expect(session?.attributes.get("samesite")).toBe("Lax");
    expect(session?.attributes.get("path")).toBe("/");
  });

  it("are __Host-tg_session, Secure, when the dashboard is served over HTTPS", async () => {
    const https = await startTestGateway({
      config: {
        admin: { externalUrl: "https://gateway.example" },
        signIn: { local: { enabled: true } },
        redis: { prefix: t.store.prefix },
      } as never,
    });
    try {
      const url = https.gateway.adminUrl as string;
      const res = await fetch(`${url}/auth/password`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://gateway.example" },
        body: JSON.stringify({ email: "flags@example.com", password: PASSWORD }),
      });
      expect(res.status).toBe(200);
      const [session] = res.headers.getSetCookie().map(parseSetCookie);
      expect(session?.name).toBe("__Host-tg_session");
      expect([...(session?.attributes.keys() ?? [])].sort()).toEqual([
        "httponly",
        "path",
        "samesite",
        "secure",
      ]);
      expect(session?.attributes.has("domain")).toBe(false);
      // The admin listener's own address is not the dashboard's origin there.
      const other = await fetch(`${url}/auth/password`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: url },
        body: JSON.stringify({ email: "flags@example.com", password: PASSWORD }),
      });
      expect(other.status).toBe(403);
    } finally {
      await https.close();
    }
  });
});

describe("guessing passwords", () => {
  it("waits from the 11th wrong password within a minute, with Retry-After, and the wait grows", async () => {
    await newPerson("brute@example.com");
    await newPerson("bystander@example.com");
    const from = { "x-forwarded-for": "192.0.2.1" };
    for (let i = 1; i <= 10; i++) {
      const { res } = await signIn("brute@example.com", `wrong-password-${i}`, from);
      expect(res.status, `try ${i}`).toBe(401);
    }
    const eleventh = await signIn("brute@example.com", PASSWORD, from);
    expect(eleventh.res.status).toBe(429);
    expect(eleventh.body.error.code).toBe("too_many_attempts");
    expect(eleventh.res.headers.get("retry-after")).toBe("60");
    expect(eleventh.session).toBeUndefined();
    // Locked per e-mail (from any address) and per address (for any e-mail).
    expect((await signIn("brute@example.com", PASSWORD, { "x-forwarded-for": "192.0.2.9" })).res.status).toBe(
      429,
    );
    expect((await signIn("bystander@example.com", PASSWORD, from)).res.status).toBe(429);
    t.clock.advance(60_000);
    // The lock is over; ten more wrong ones lock it for twice as long.
    for (let i = 1; i <= 10; i++) await signIn("brute@example.com", `wrong-again-${i}`, from);
    const locked = await signIn("brute@example.com", PASSWORD, from);
    expect(locked.res.headers.get("retry-after")).toBe("120");
    t.clock.advance(120_000);
    expect((await signIn("brute@example.com", PASSWORD, from)).res.status).toBe(200);
  });

  it("answers an unknown e-mail exactly as a wrong password, and counts it the same", async () => {
    await newPerson("known@example.com");
    const known = await signIn("known@example.com", "not-the-password", { "x-forwarded-for": "192.0.2.2" });
    const unknown = await signIn("nobody-here@example.com", "not-the-password", {
      "x-forwarded-for": "192.0.2.3",
    });
    expect([unknown.res.status, unknown.body]).toEqual([known.res.status, known.body]);
    expect(unknown.body.error.code).toBe("sign_in_failed");
    for (let i = 0; i < 9; i++)
      await signIn("nobody-here@example.com", "still-not-it", { "x-forwarded-for": `192.0.2.${10 + i}` });
    expect(
      (await signIn("nobody-here@example.com", "still-not-it", { "x-forwarded-for": "192.0.2.30" })).res
        .status,
    ).toBe(429);
  });
});

describe("invitations", () => {
  async function invite(email: string) {
    return identity.invitations.create("acme", { email, role: "member" }, ACTOR, admin);
  }

  function accept(url: string, password = PASSWORD) {
    const token = url.slice(url.lastIndexOf("/") + 1);
    return fetch(`${admin}/auth/invitations/accept`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ token, password, name: "Invited" }),
    });
  }

  it("are taken once: a second use is refused, and of two racing uses exactly one wins", async () => {
    const { url } = await invite("invited@example.com");
    expect(url).toMatch(new RegExp(`^${admin}/#/invite/[\\w-]{43}$`));
    const first = await accept(url);
    expect(first.status).toBe(200);
    expect(await json(first)).toMatchObject({ account_id: "acme", role: "member", created: true });
    const second = await accept(url);
    expect(second.status).toBe(400);
    expect((await json(second)).error.code).toBe("invitation_invalid");

    // A signed-in person's browser accepting one link three times at once: exactly one use.
    await newPerson("racer@example.com", "member");
    const { cookie } = await signIn("racer@example.com");
    const race = await invite("racer@example.com");
    const token = race.url.slice(race.url.lastIndexOf("/") + 1);
    const once = () =>
      fetch(`${admin}/auth/invitations/accept`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: admin, cookie },
        body: JSON.stringify({ token }),
      });
    const statuses = (await Promise.all([once(), once(), once()])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 400, 400]);
  });

  it("are refused after they expire, and a weak password leaves the link usable", async () => {
    const weak = await invite("weak@example.com");
    const refused = await accept(weak.url, "password1234");
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.code).toBe("weak_password");
    expect((await accept(weak.url)).status).toBe(200);

    const late = await invite("late@example.com");
    t.clock.advance(7 * 86_400_000);
    const expired = await accept(late.url);
    expect(expired.status).toBe(400);
    expect((await json(expired)).error.code).toBe("invitation_invalid");
    expect(await identity.users.byEmail("late@example.com")).toBeNull();
  });
});

describe("secrets", () => {
  it("never reach Redis or the logs: passwords, session ids, CSRF and link tokens, API token values", async () => {
    const secrets: string[] = [];
    const first = "first-secret-password-0001";
    const changed = "changed-secret-password-0002";
    const wrong = "wrong-secret-password-0003";
    const user = await identity.users.create({ email: "secret@example.com", name: "Secret" }, ACTOR);
    await identity.grants.grant("acme", user.id, "direct", "owner", ACTOR);
    const link = await identity.passwords.passwordLink(user.id, admin);
    const linkToken = link.slice(link.lastIndexOf("/") + 1);
    const set = await fetch(`${admin}/auth/password/set`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ token: linkToken, password: first }),
    });
    expect(set.status).toBe(200);
    await signIn("secret@example.com", wrong);
    const signedIn = await signIn("secret@example.com", first);
    const csrf = signedIn.body.csrf_token as string;
    const change = await fetch(`${admin}/admin/v1/me/password`, {
      method: "POST",
      headers: {
        cookie: signedIn.cookie,
        origin: admin,
        "x-csrf-token": csrf,
        "content-type": "application/json",
      },
      body: JSON.stringify({ current_password: first, new_password: changed }),
    });
    expect(change.status).toBe(200);
    const token = await fetch(`${admin}/admin/v1/me/tokens`, {
      method: "POST",
      headers: {
        cookie: signedIn.cookie,
        origin: admin,
        "x-csrf-token": csrf,
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "ci", role: "member", account_id: "acme", days: 30 }),
    });
    expect(token.status).toBe(201);
    const invited = await identity.invitations.create(
      "acme",
      { email: "x@example.com", role: "viewer" },
      ACTOR,
      admin,
    );
    secrets.push(
      first,
      changed,
      wrong,
      linkToken,
      signedIn.session?.value as string,
      csrf,
      (await json(token)).token,
      invited.url.slice(invited.url.lastIndexOf("/") + 1),
    );

    const dump = await dumpRedis(t.store.redis, t.store.prefix);
    expect(dump.length).toBeGreaterThan(1000);
    const logs = JSON.stringify(t.logs);
    for (const secret of secrets) {
      expect(dump.includes(secret), `${secret.slice(0, 6)}… in Redis`).toBe(false);
      expect(logs.includes(secret), `${secret.slice(0, 6)}… in the logs`).toBe(false);
    }
    // The password is kept as an argon2id hash with OWASP's parameters.
    expect(dump).toMatch(/\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

/** Every key under the prefix with its value, whatever its type, as one text. */
async function dumpRedis(redis: RedisClient, prefix: string): Promise<string> {
  const client = redis as import("ioredis").Redis;
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const type = await client.type(key);
      const value =
        type === "string"
          ? await client.get(key)
          : type === "hash"
            ? await client.hgetall(key)
            : type === "list"
              ? await client.lrange(key, 0, -1)
              : type === "set"
                ? await client.smembers(key)
                : type === "zset"
                  ? await client.zrange(key, "0", "-1", "WITHSCORES")
                  : type === "stream"
                    ? await client.xrange(key, "-", "+")
                    : null;
      out.push(key, JSON.stringify(value));
    }
  } while (cursor !== "0");
  return out.join("\n");
}
