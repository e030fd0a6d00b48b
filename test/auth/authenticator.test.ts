// From an Authorization header to the key it names, on the suite's Redis: the refusals, and the caches that
// spare Redis a lookup for a known key and for a wrong key sent again and again.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/auth/api-key.js";
import { Authenticator, bearerToken } from "../../src/auth/authenticator.js";
import type { KeyStore } from "../../src/store/keys/key-store.js";
import { ACTOR } from "../helpers/actor.js";
import { openStore, type TestStore } from "../helpers/store.js";

let store: TestStore;
let key: { value: string; id: string };

beforeAll(async () => {
  store = await openStore();
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
  const created = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
  key = { value: created.value, id: created.record.id };
});
afterAll(() => store.close());

/** An Authenticator on the real key store, counting the lookups that reach Redis. */
function authenticator() {
  let lookups = 0;
  const keys = Object.create(store.keys) as KeyStore;
  keys.lookup = (hash) => {
    lookups++;
    return store.keys.lookup(hash);
  };
  return { auth: new Authenticator(keys), lookups: () => lookups };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "resolved",
    (error: { code?: string }) => error.code ?? String(error),
  );
}

describe("bearerToken", () => {
  it("takes the credential of a Bearer header, whatever the scheme's case and the spaces around it", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc ")).toBe("abc");
  });

  it("says missing_api_key for no header, another scheme or an empty credential", () => {
    for (const header of [undefined, "", "Basic abc", "Bearer", "Bearer ", "Bearer a b", "abc"]) {
      expect(() => bearerToken(header), String(header)).toThrow(
        expect.objectContaining({ code: "missing_api_key" }),
      );
    }
  });
});

describe("Authenticator", () => {
  it("resolves a key to its account and id, and asks Redis only the first time", async () => {
    const { auth, lookups } = authenticator();
    const first = await auth.resolve({ authorization: `Bearer ${key.value}` });
    expect(first).toMatchObject({ ref: { accountId: "acme", keyId: key.id }, token: key.value });
    expect(await auth.resolve({ authorization: `Bearer ${key.value}` })).toEqual(first);
    expect(lookups()).toBe(1);
  });

  it("refuses a malformed key without asking Redis", async () => {
    const { auth, lookups } = authenticator();
    for (const token of ["sk-tunnel-abc", `sk-tunnel-${"A".repeat(64)}`, `sk-other-${"a".repeat(64)}`]) {
      expect(await codeOf(auth.resolve({ authorization: `Bearer ${token}` })), token.slice(0, 12)).toBe(
        "invalid_api_key",
      );
    }
    expect(await codeOf(auth.resolve({}))).toBe("missing_api_key");
    expect(lookups()).toBe(0);
  });

  it("refuses an unknown key, and asks Redis once however often it is sent", async () => {
    const { auth, lookups } = authenticator();
    const stranger = generateApiKey();
    for (let i = 0; i < 3; i++)
      expect(await codeOf(auth.resolve({ authorization: `Bearer ${stranger}` }))).toBe("invalid_api_key");
    expect(lookups()).toBe(1);
    // The cache of misses holds that key only: a real key still resolves.
    expect((await auth.resolve({ authorization: `Bearer ${key.value}` })).ref.keyId).toBe(key.id);
  });

  it("takes the key from x-api-key when there is no Authorization header, as Anthropic's clients send it", async () => {
    const { auth } = authenticator();
    expect((await auth.resolve({ "x-api-key": key.value })).ref.keyId).toBe(key.id);
    // Authorization wins when both are sent; a wrong one is not rescued by a right x-api-key.
    expect(await codeOf(auth.resolve({ authorization: "Bearer sk-tunnel-x", "x-api-key": key.value }))).toBe(
      "invalid_api_key",
    );
    expect(await codeOf(auth.resolve({ "x-api-key": "sk-tunnel-abc" }))).toBe("invalid_api_key");
  });

  it("ignores x-api-key when auth.acceptXApiKey is off", async () => {
    const auth = new Authenticator(store.keys, { acceptXApiKey: false });
    expect(await codeOf(auth.resolve({ "x-api-key": key.value }))).toBe("missing_api_key");
  });
});
