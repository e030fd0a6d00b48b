// The authenticate stage on the suite's Redis: a key's credential is resolved to its key, written on the
// request with the time it was known; an unknown one is refused with invalid_api_key and writes nothing.

import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Authenticator } from "../../../src/auth/authenticator.js";
import { GatewayError } from "../../../src/core/errors.js";
import { GatewayRequest } from "../../../src/core/request.js";
import { authenticate } from "../../../src/proxy/stages/authenticate.js";
import { Passage } from "../../../src/proxy/stages/phases.js";
import { ACTOR } from "../../helpers/actor.js";
import { openStore, type TestStore } from "../../helpers/store.js";

let store: TestStore;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

function arrived(authorization: string): Passage {
  const request = new GatewayRequest("r1", "POST", "/v1/chat/completions", 0);
  const req = { headers: { authorization } } as IncomingMessage;
  return new Passage(req, {} as ServerResponse, request, "r1", "POST", "/v1/chat/completions", false);
}

describe("the authenticate stage", () => {
  it("resolves the credential to its key and writes it on the request", async () => {
    await store.accountService.create({ id: "acme", balance: "1" }, ACTOR);
    const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const run = authenticate.create({ authenticator: new Authenticator(store.keys) });
    const passage = arrived(`Bearer ${key.value}`);
    const authenticated = await run(passage);
    expect(authenticated).toBe(passage);
    expect(authenticated.credential.ref).toEqual({ accountId: "acme", keyId: key.record.id });
    expect(authenticated.request.ref).toEqual(authenticated.credential.ref);
    expect(authenticated.request.authenticatedAt).toBeGreaterThan(0);
  });

  it("refuses an unknown key, writing nothing", async () => {
    const run = authenticate.create({ authenticator: new Authenticator(store.keys) });
    const passage = arrived(`Bearer sk-tunnel-${"0".repeat(64)}`);
    await expect(run(passage)).rejects.toThrow(GatewayError);
    expect(passage.credential).toBeNull();
    expect(passage.request.ref).toBeNull();
  });
});
