// SCIM at /scim/v2 as the protocol has it, over real HTTP against the running gateway: only a live SCIM
// token gets in (and a SCIM token gets nowhere else); the discovery documents; filters and pages; errors in
// SCIM's shape; and hostile input — huge bodies, deep JSON, wrong types, unknown attributes — refused with a
// clear error that writes nothing: Redis holds exactly what it held before.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type ScimGateway, startScimGateway } from "../helpers/scim.js";

let g: ScimGateway;

beforeAll(async () => {
  g = await startScimGateway();
});
afterAll(async () => {
  await g?.close();
});

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

function user(email: string, extra: Record<string, unknown> = {}) {
  return { schemas: [USER], userName: email, name: { givenName: "G", familyName: "F" }, ...extra };
}

/** Every key under the test's prefix with its value, to show that a refused request wrote nothing. */
async function snapshot(): Promise<Map<string, string>> {
  const { redis, prefix } = g.t.store;
  const keys = (await redis.keys(`${prefix}*`)).sort();
  const values = new Map<string, string>();
  for (const key of keys) values.set(key, ((await redis.dumpBuffer(key)) ?? Buffer.alloc(0)).toString("hex"));
  return values;
}

describe("who may call SCIM", () => {
  it("refuses no token, a wrong one, and every other credential with 401 in SCIM's shape", async () => {
    const person = await g.t.store.stores.users.byEmail("nobody@example.com");
    expect(person).toBeNull();
    for (const credential of [null, `sk-tunnel-scim-${"0".repeat(64)}`, "garbage", ADMIN_TOKEN]) {
      const answer = await g.scim("GET", "/Users", undefined, credential);
      expect(answer.status, String(credential)).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="tunnel-gateway SCIM"');
      expect(answer.body).toMatchObject({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
        status: "401",
      });
    }
  });

  it("refuses a SCIM token on the admin API", async () => {
    for (const path of ["/admin/v1/users", "/admin/v1/scim/tokens", "/admin/v1/me"]) {
      const answer = await g.adminCall("GET", path, g.token);
      expect(answer.status, path).toBe(401);
    }
  });

  it("refuses a revoked token at its next request, and lists the live ones without their values", async () => {
    g.t.clock.advance(1000);
    const made = await g.adminCall("POST", "/admin/v1/scim/tokens", ADMIN_TOKEN, { name: "okta" });
    expect(made.body.token).toMatch(/^sk-tunnel-scim-[0-9a-f]{64}$/);
    expect((await g.scim("GET", "/ServiceProviderConfig", undefined, made.body.token)).status).toBe(200);
    const listed = await g.adminCall("GET", "/admin/v1/scim/tokens", ADMIN_TOKEN);
    expect(listed.body.tokens.map((t: { name: string }) => t.name)).toEqual(["directory", "okta"]);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    expect(listed.body.tokens[1]).toMatchObject({ created_by: "admin", hint: made.body.token.slice(-4) });
    expect(listed.body.tokens[1].last_used_at).not.toBeNull();
    const revoked = await g.adminCall("DELETE", `/admin/v1/scim/tokens/${made.body.id}`, ADMIN_TOKEN);
    expect(revoked).toMatchObject({ status: 200, body: { revoked: 1 } });
    expect((await g.scim("GET", "/ServiceProviderConfig", undefined, made.body.token)).status).toBe(401);
    const log = await g.adminCall("GET", "/admin/v1/scim/audit", ADMIN_TOKEN);
    expect(log.body.entries.slice(0, 2).map((e: { action: string }) => e.action)).toEqual([
      "scim.token.revoke",
      "scim.token.create",
    ]);
    expect(JSON.stringify(g.t.logs)).not.toContain(made.body.token);
  });
});

describe("discovery", () => {
  it("answers ServiceProviderConfig, ResourceTypes and Schemas", async () => {
    const config = await g.scim("GET", "/ServiceProviderConfig");
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [{ type: "oauthbearertoken" }],
    });
    const types = await g.scim("GET", "/ResourceTypes");
    expect(types.body.Resources.map((t: { endpoint: string }) => t.endpoint)).toEqual(["/Users", "/Groups"]);
    expect((await g.scim("GET", "/ResourceTypes/Group")).body.schema).toBe(GROUP);
    const schemas = await g.scim("GET", "/Schemas");
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GROUP]);
    const userSchema = await g.scim("GET", `/Schemas/${USER}`);
    expect(userSchema.body.attributes.map((a: { name: string }) => a.name)).toContain("userName");
    expect((await g.scim("POST", "/ServiceProviderConfig", {})).status).toBe(405);
    expect((await g.scim("GET", "/Nothing")).status).toBe(404);
  });
});

describe("filters and pages", () => {
  const ids: string[] = [];

  beforeAll(async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      const made = await g.scim(
        "POST",
        "/Users",
        user(`page${n}@example.com`, { externalId: `ext-${n}`, displayName: `Page ${n}` }),
      );
      ids.push(made.body.id);
    }
  });

  it("pages through every user in a stable order with startIndex, count and totalResults", async () => {
    const seen: string[] = [];
    let total = 0;
    for (let start = 1; start <= 9; start += 2) {
      const page = await g.scim("GET", `/Users?startIndex=${start}&count=2`);
      total = page.body.totalResults;
      expect(page.body.startIndex).toBe(start);
      seen.push(...page.body.Resources.map((u: { id: string }) => u.id));
    }
    expect(total).toBe(seen.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect((await g.scim("GET", "/Users?count=0")).body).toMatchObject({ itemsPerPage: 0, Resources: [] });
    expect((await g.scim("GET", "/Users?count=100000")).body.itemsPerPage).toBe(total);
    expect((await g.scim("GET", "/Users?startIndex=-3&count=1")).body.startIndex).toBe(1);
    const bad = await g.scim("GET", "/Users?count=ten");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: "invalidValue" });
  });

  it("finds by userName (any case), externalId and displayName, joined with and", async () => {
    const find = async (filter: string) =>
      (await g.scim("GET", `/Users?filter=${encodeURIComponent(filter)}`)).body.Resources.map(
        (u: { id: string }) => u.id,
      );
    expect(await find('userName eq "PAGE2@example.com"')).toEqual([ids[1]]);
    expect(await find('externalId eq "ext-3"')).toEqual([ids[2]]);
    expect(await find('displayName eq "page 4"')).toEqual([ids[3]]);
    expect(await find('userName eq "page5@example.com" and externalId eq "ext-5"')).toEqual([ids[4]]);
    expect(await find('userName eq "page5@example.com" and externalId eq "ext-4"')).toEqual([]);
    expect((await g.scim("GET", `/Users/${ids[0]}?attributes=userName`)).body).toEqual({
      schemas: [USER],
      id: ids[0],
      userName: "page1@example.com",
    });
  });

  it("refuses filters it does not answer, naming what it does", async () => {
    for (const filter of [
      'userName co "page"',
      'userName eq "a" or userName eq "b"',
      "title eq x",
      "userName eq",
      "((",
      "__proto__ eq 1",
    ]) {
      const answer = await g.scim("GET", `/Users?filter=${encodeURIComponent(filter)}`);
      expect(answer.status, filter).toBe(400);
      expect(answer.body.scimType, filter).toBe("invalidFilter");
    }
    const long = await g.scim(
      "GET",
      `/Users?filter=${encodeURIComponent(`userName eq "${"a".repeat(1000)}"`)}`,
    );
    expect(long.status).toBe(400);
    expect(long.body.detail).toBe("A filter may be at most 1000 characters long.");
  });
});

describe("refusals write nothing", () => {
  it("refuses hostile and wrong input with a clear SCIM error, Redis unchanged", async () => {
    const taken = await g.scim("POST", "/Users", user("taken@example.com", { externalId: "taken" }));
    const group = await g.scim("POST", "/Groups", { schemas: [GROUP], displayName: "Taken group" });
    const before = await snapshot();
    const refusals: [string, string, unknown, number, string | undefined][] = [
      ["POST", "/Users", user("taken@example.com"), 409, "uniqueness"],
      ["POST", "/Users", user("TAKEN@example.com"), 409, "uniqueness"],
      ["POST", "/Users", user("new1@example.com", { externalId: "taken" }), 409, "uniqueness"],
      ["POST", "/Users", user("not-an-email"), 400, "invalidValue"],
      ["POST", "/Users", { schemas: [USER], userName: 42 }, 400, "invalidValue"],
      [
        "POST",
        "/Users",
        { schemas: [USER], userName: "x@example.com", active: "maybe" },
        400,
        "invalidValue",
      ],
      [
        "POST",
        "/Users",
        { schemas: [USER], userName: "x@example.com", name: { givenName: 7 } },
        400,
        "invalidValue",
      ],
      ["POST", "/Users", user("x@example.com", { displayName: "d".repeat(300) }), 400, "invalidValue"],
      ["POST", "/Users", [], 400, "invalidSyntax"],
      ["POST", "/Groups", { schemas: [GROUP], displayName: "taken GROUP" }, 409, "uniqueness"],
      [
        "POST",
        "/Groups",
        { schemas: [GROUP], displayName: "G", members: [{ value: "usr_00000000000000000000" }] },
        400,
        "invalidValue",
      ],
      [
        "PATCH",
        `/Users/${taken.body.id}`,
        { schemas: [PATCH], Operations: [{ op: "replace", path: "id", value: "x" }] },
        400,
        "mutability",
      ],
      [
        "PATCH",
        `/Users/${taken.body.id}`,
        { schemas: [PATCH], Operations: [{ op: "frob", path: "active" }] },
        400,
        "invalidSyntax",
      ],
      ["PATCH", `/Users/${taken.body.id}`, { schemas: [PATCH], Operations: [] }, 400, "invalidValue"],
      [
        "PATCH",
        `/Users/${taken.body.id}`,
        { schemas: [PATCH], Operations: [{ op: "add", path: "__proto__.polluted", value: 1 }] },
        400,
        "invalidPath",
      ],
      [
        "PATCH",
        `/Groups/${group.body.id}`,
        {
          schemas: [PATCH],
          Operations: [
            { op: "replace", path: "displayName", value: "Renamed" },
            { op: "add", path: "members", value: [{ value: "usr_00000000000000000000" }] },
          ],
        },
        400,
        "invalidValue",
      ],
      ["PUT", "/Users/usr_00000000000000000000", user("x@example.com"), 404, undefined],
      ["DELETE", "/Groups/grp_00000000000000000000", undefined, 404, undefined],
    ];
    for (const [method, path, body, status, scimType] of refusals) {
      const answer = await g.scim(method, path, body);
      const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}`;
      expect(answer.status, what).toBe(status);
      expect(answer.body.scimType, what).toBe(scimType);
      expect(answer.body.detail, what).toEqual(expect.any(String));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a body over 1 MiB with 413, deep JSON and a wrong content type with 400, Redis unchanged", async () => {
    const before = await snapshot();
    const huge = user("huge@example.com", { title: "x".repeat(1024 * 1024) });
    expect((await g.scim("POST", "/Users", huge)).status).toBe(413);
    const deep = `{"schemas":["${USER}"],"userName":"deep@example.com","x":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const res = await fetch(`${g.admin}/scim/v2/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.token}`, "content-type": "application/scim+json" },
      body: deep,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { scimType: string }).scimType).toBe("invalidSyntax");
    const plain = await fetch(`${g.admin}/scim/v2/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.token}`, "content-type": "text/plain" },
      body: JSON.stringify(user("plain@example.com")),
    });
    expect(plain.status).toBe(400);
    const broken = await fetch(`${g.admin}/scim/v2/Users`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.token}`, "content-type": "application/scim+json" },
      body: '{"userName": ',
    });
    expect(broken.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it("accepts unknown and unkept attributes and drops them", async () => {
    const made = await g.scim(
      "POST",
      "/Users",
      user("extra@example.com", { title: "CTO", nickName: "x", frobnicate: { a: 1 } }),
    );
    expect(made.status).toBe(201);
    expect(made.body.title).toBeUndefined();
    expect(made.body.frobnicate).toBeUndefined();
  });
});
