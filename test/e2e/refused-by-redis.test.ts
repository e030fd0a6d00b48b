// A creation Redis itself refuses undoes what it had written: `users create` run by an ACL user that may not
// write one of the keys a user spans, a key of the wrong type in the way of a step, and the same e-mail
// created twice at once. Redis is compared whole before and after (every key under the test's prefix,
// value for value), and the error names what went wrong rather than an outage that is not there.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { usersCommands } from "../../src/cli/users-commands.js";
import { ACTOR } from "../helpers/actor.js";
import { runCli, stubCliEnvironment } from "../helpers/cli.js";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { testIdentity } from "../helpers/identity.js";
import { redisSnapshot } from "../helpers/redis-snapshot.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let prefix: string;
const aclUsers: string[] = [];
beforeEach(async () => {
  prefix = stubCliEnvironment();
  store = await openStore({ prefix });
  await store.accountService.create({ id: "acme" }, ACTOR);
  await testIdentity(store).users.create({ email: "someone@corp.example" }, ACTOR);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const user of aclUsers.splice(0)) await store.redis.call("ACL", "DELUSER", user);
  store.close();
});

const createMember = () =>
  runCli(usersCommands, [
    "users",
    "create",
    "--email",
    "x@corp.example",
    "--account",
    "acme",
    "--role",
    "owner",
  ]);

/** Every kind of key a user and their first membership span, as ACL patterns under the test's prefix. */
const WRITABLE = {
  emailClaim: "user-email:*",
  listing: "users",
  record: "{u:*}:user",
  userAudit: "{u:*}:audit",
  userAccounts: "{u:*}:accounts",
  members: "{a:*}:members",
  accountAudit: "{a:*}:audit",
} as const;

/**
 * Points the CLI at Redis as an ACL user that reads everything and writes all but `denied` (a script needs
 * one pattern granting both read and write of each of its keys: `~`, not `%R~` beside `%W~`).
 */
async function restrictedTo(denied: keyof typeof WRITABLE): Promise<void> {
  const name = `refused-${prefix.replace(/\W/g, "")}-${denied}`;
  const writes = Object.entries(WRITABLE)
    .filter(([kind]) => kind !== denied)
    .map(([, pattern]) => `~${prefix}${pattern}`);
  await store.redis.call("ACL", "SETUSER", name, "reset", "on", ">pw", "+@all", "&*", "%R~*", ...writes);
  aclUsers.push(name);
  const url = new URL(inject("redisUrl"));
  url.username = name;
  url.password = "pw";
  vi.stubEnv("TUNNEL_REDIS_URL", url.toString());
}

const codeOf = (run: { error: unknown }) => (run.error as { code?: string } | null)?.code;
const messageOf = (run: { error: unknown }) => (run.error as Error | null)?.message ?? "";

describe("users create refused by Redis's ACL", () => {
  it.each(Object.keys(WRITABLE) as (keyof typeof WRITABLE)[])(
    "undoes everything when the user may not write the %s",
    async (denied) => {
      await restrictedTo(denied);
      const before = await redisSnapshot(store.redis, prefix);
      const refused = await createMember();
      expect(messageOf(refused)).toMatch(/NOPERM/);
      expect(await redisSnapshot(store.redis, prefix)).toEqual(before);
      // The refusal took nothing: with the ACL lifted, the same command creates the member.
      vi.stubEnv("TUNNEL_REDIS_URL", inject("redisUrl"));
      const retried = await createMember();
      expect(retried.error).toBeNull();
      const user = await store.stores.users.byEmail("x@corp.example");
      expect(await store.stores.users.accountGrants("acme", user?.id ?? "")).toEqual({ direct: "owner" });
    },
  );

  it("says that Redis refused which change, not that Redis is out of reach", async () => {
    await restrictedTo("members");
    const refused = await createMember();
    expect(codeOf(refused)).toBe("redis_refused");
    expect(messageOf(refused)).toMatch(
      /^Redis refused to grant x@corp\.example the role owner in account acme: NOPERM/,
    );
  });
});

describe("users create with a key of the wrong type in the way", () => {
  it.each([
    ["the account's audit log", "{a:acme}:audit", "list"],
    ["the account's members", "{a:acme}:members", "hash"],
  ])("refuses before writing anything when %s is a string, naming the key", async (_what, key, kind) => {
    await store.redis.del(`${prefix}${key}`);
    await store.redis.set(`${prefix}${key}`, "in the way");
    const before = await redisSnapshot(store.redis, prefix);
    const refused = await createMember();
    expect(codeOf(refused)).toBe("redis_refused");
    expect(messageOf(refused)).toContain(`WRONGTYPE ${prefix}${key} holds a string where a ${kind} belongs`);
    expect(await redisSnapshot(store.redis, prefix)).toEqual(before);
  });

  it("undoes the user when the listing of users is not a sorted set", async () => {
    await store.redis.del(`${prefix}users`);
    await store.redis.set(`${prefix}users`, "in the way");
    const before = await redisSnapshot(store.redis, prefix);
    const refused = await createMember();
    expect(codeOf(refused)).toBe("redis_refused");
    expect(messageOf(refused)).toMatch(/^Redis refused to create the user x@corp\.example: WRONGTYPE/);
    expect(await redisSnapshot(store.redis, prefix)).toEqual(before);
  });

  it("refuses a script of a user's record whose audit log is in the way, writing nothing", async () => {
    const identity = testIdentity(store);
    const user = await identity.users.find("someone@corp.example");
    await store.redis.del(store.redisKeys.userAudit(user.id));
    await store.redis.set(store.redisKeys.userAudit(user.id), "in the way");
    const before = await redisSnapshot(store.redis, prefix);
    await expect(identity.users.disable(user.id, ACTOR)).rejects.toThrow(
      `WRONGTYPE ${store.redisKeys.userAudit(user.id)} holds a string where a list belongs`,
    );
    expect(await redisSnapshot(store.redis, prefix)).toEqual(before);
  });
});

describe("the same e-mail created twice at once", () => {
  /** The snapshot with user ids and the prefix named alike, so that two runs compare. */
  function normalised(snapshot: object, testPrefix: string, ids: string[]): unknown {
    let text = JSON.stringify(snapshot).split(testPrefix).join("<prefix>");
    for (const [i, id] of ids.entries()) text = text.split(id).join(`<user ${i}>`);
    return JSON.parse(text);
  }

  it("creates the person once, refuses the other with user_exists naming the e-mail, and leaves what one creation leaves", async () => {
    const identity = testIdentity(store);
    const input = {
      email: "twice@corp.example",
      name: "Twice",
      account: { accountId: "acme", role: "owner" },
    };
    // A second later than the person made before, so that the listing's order does not hang on random ids.
    store.clock.advance(1000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => identity.users.create(input, ACTOR)),
    );
    const created = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(created).toHaveLength(1);
    for (const { reason } of refused) {
      expect(reason).toMatchObject({ code: "user_exists" });
      expect(String(reason.message)).toContain("twice@corp.example");
    }

    // The same creation alone, on a store of its own set up alike: Redis must hold exactly the same.
    const alone = await openStore({ prefix: `${prefix}alone:` });
    try {
      await alone.accountService.create({ id: "acme" }, ACTOR);
      const aloneIdentity = testIdentity(alone);
      const someone = await aloneIdentity.users.create({ email: "someone@corp.example" }, ACTOR);
      alone.clock.advance(1000);
      const single = await aloneIdentity.users.create(input, ACTOR);
      const raced = (await identity.users.find("twice@corp.example")).id;
      const racedSomeone = (await identity.users.find("someone@corp.example")).id;
      const mine = await redisSnapshot(store.redis, prefix);
      for (const key of Object.keys(mine)) if (key.startsWith(alone.prefix)) delete mine[key];
      expect(normalised(mine, prefix, [raced, racedSomeone])).toEqual(
        normalised(await redisSnapshot(alone.redis, alone.prefix), alone.prefix, [single.id, someone.id]),
      );
    } finally {
      alone.close();
    }
  });
});

const ADMIN_TOKEN = "refused-by-redis-admin-token-0123456789";

describe("the admin API's creations refused by Redis", () => {
  let t: TestGateway;
  let admin: string;
  beforeAll(async () => {
    t = await startTestGateway({
      config: { admin: { token: ADMIN_TOKEN }, signIn: { local: { enabled: true } } } as never,
    });
    admin = t.gateway.adminUrl as string;
    await t.store.accountService.create({ id: "acme", name: "Acme" }, ACTOR);
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = async (path: string, body: unknown, session?: { cookie: string; csrf: string }) => {
    const res = await fetch(`${admin}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: admin,
        ...(session && { cookie: session.cookie, "x-csrf-token": session.csrf }),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await json(res) };
  };

  /** Puts a string where `key` belongs, runs `refused`, and checks Redis is as before; then clears the way. */
  async function inTheWay(key: string, refused: () => Promise<{ status: number; body: any }>) {
    const original = await t.store.redis.dumpBuffer(key);
    await t.store.redis.del(key);
    await t.store.redis.set(key, "in the way");
    const before = await redisSnapshot(t.store.redis, t.store.prefix);
    const answer = await refused();
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatchObject({ code: "redis_refused" });
    expect(answer.body.error.message).toMatch(/WRONGTYPE/);
    expect(answer.body.error.message).toContain(key);
    expect(await redisSnapshot(t.store.redis, t.store.prefix)).toEqual(before);
    await t.store.redis.del(key);
    if (original !== null) await t.store.redis.restore(key, 0, original);
  }

  it("an invitation accepted by someone new whose grant Redis refuses makes no user, and its link works again", async () => {
    const identity = testIdentity(t.store);
    const { url } = await identity.invitations.create(
      "acme",
      { email: "newcomer@corp.example", role: "member" },
      ACTOR,
      admin,
    );
    const token = url.split("/#/invite/")[1] as string;
    const accept = () => post("/auth/invitations/accept", { token, password: "a-password-long-enough-1" });
    await inTheWay(t.store.redisKeys.members("acme"), accept);
    const accepted = await accept();
    expect(accepted).toMatchObject({ status: 200, body: { created: true, role: "member" } });
  });

  it("a password set by link that Redis refuses changes nothing, and the link works again", async () => {
    const identity = testIdentity(t.store);
    const user = await identity.users.create({ email: "pia@corp.example" }, ACTOR);
    const link = await identity.passwords.passwordLink(user.id, admin);
    const token = link.split("/#/set-password/")[1] as string;
    const set = () => post("/auth/password/set", { token, password: "a-password-long-enough-1" });
    await inTheWay(t.store.redisKeys.userAudit(user.id), set);
    expect((await set()).status).toBe(200);
  });

  it("an API token whose account's audit log Redis refuses is neither usable, listed nor audited", async () => {
    const identity = testIdentity(t.store);
    const password = "a-password-long-enough-1";
    await identity.users.create(
      { email: "olga@corp.example", password, account: { accountId: "acme", role: "owner" } },
      ACTOR,
    );
    const signIn = await fetch(`${admin}/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: admin },
      body: JSON.stringify({ email: "olga@corp.example", password }),
    });
    const session = {
      cookie: (signIn.headers.getSetCookie()[0] ?? "").split(";")[0] as string,
      csrf: (await json(signIn)).csrf_token as string,
    };
    const make = () =>
      post("/admin/v1/me/tokens", { name: "ci", role: "viewer", account_id: "acme" }, session);
    await inTheWay(t.store.redisKeys.audit("acme"), make);
    expect((await make()).status).toBe(201);
  });

  it("a SCIM token whose audit entry Redis refuses is neither usable nor listed", async () => {
    const make = async () => {
      const res = await fetch(`${admin}/admin/v1/scim/tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "okta" }),
      });
      return { status: res.status, body: await json(res) };
    };
    await inTheWay(t.store.redisKeys.scimAudit(), make);
    expect((await make()).status).toBe(201);
  });

  it("a SCIM group whose audit entry Redis refuses is not made, and the directory is told", async () => {
    const made = await fetch(`${admin}/admin/v1/scim/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "entra" }),
    });
    const scimToken = (await json(made)).token as string;
    // A request with the token records its last use (on the test's clock): made once before, it is the same.
    await fetch(`${admin}/scim/v2/Groups`, { headers: { authorization: `Bearer ${scimToken}` } });
    const key = t.store.redisKeys.scimAudit();
    await t.store.redis.del(key);
    await t.store.redis.set(key, "in the way");
    const before = await redisSnapshot(t.store.redis, t.store.prefix);
    const res = await fetch(`${admin}/scim/v2/Groups`, {
      method: "POST",
      headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Ops" }),
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(await json(res))).not.toContain(scimToken);
    expect(await redisSnapshot(t.store.redis, t.store.prefix)).toEqual(before);
    await t.store.redis.del(key);
  });
});
