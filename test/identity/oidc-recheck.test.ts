// Asking a real OpenID provider again about a person it vouched for: with the refresh token (a new ID token
// for the same subject, then userinfo; the refresh token kept when the provider gives no new one), or with the
// access token while it lasts. Refused when the provider no longer vouches (invalid_grant, invalid_token) or
// nothing is left to ask with; unreachable when it does not answer. tokensOf makes the expiry absolute.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Identity } from "../../src/identity/identity.js";
import { type ProviderTokens, recheck, tokensOf } from "../../src/identity/oidc-recheck.js";
import { ProviderConfigs } from "../../src/identity/provider-configs.js";
import type { Listening } from "../helpers/http.js";
import { testIdentity } from "../helpers/identity.js";
import { captureLogs } from "../helpers/logs.js";
import {
  gatewayClient,
  providerSettings,
  startIdentityProvider,
  type TestIdentityProvider,
} from "../helpers/oidc-provider.js";
import { callbackListener, signInThroughProvider } from "../helpers/oidc-sign-in.js";
import { openStore, type TestStore } from "../helpers/store.js";

const SECRET = "recheck-client-secret-0123456789";
let refreshing: TestIdentityProvider;
let plain: TestIdentityProvider;
let callback: Listening;
let store: TestStore;
let identity: Identity;
beforeAll(async () => {
  callback = await callbackListener();
  refreshing = await startIdentityProvider({
    clients: [gatewayClient(callback.url, SECRET, ["corp"])],
    refreshTokens: true,
  });
  plain = await startIdentityProvider({ clients: [gatewayClient(callback.url, SECRET, ["plain"])] });
  store = await openStore();
  identity = testIdentity(store, {
    providerSecrets: new Map([
      ["corp", SECRET],
      ["plain", SECRET],
    ]),
    signIn: {
      providers: [
        providerSettings(refreshing, { id: "corp", name: "Corp", secretEnv: "UNUSED" }),
        providerSettings(plain, { id: "plain", name: "Plain", secretEnv: "UNUSED" }),
      ],
    },
  });
});
afterAll(async () => {
  store?.close();
  await refreshing?.close();
  await plain?.close();
  await callback?.close();
});
beforeEach(() => {
  refreshing.setDown(false);
  plain.setDown(false);
});

let people = 0;
async function signedIn(idp: TestIdentityProvider, providerId: string) {
  const subject = `person-${++people}`;
  idp.setPerson(subject, {
    email: `${subject}@example.com`,
    email_verified: true,
    name: subject,
    groups: ["a"],
  });
  const { tokens } = await signInThroughProvider(identity, store.stores, providerId, subject, callback);
  // The provider's configuration as a ProviderConfigs of the test's own discovers it.
  const configs = new ProviderConfigs(
    [identity.oidc.settings(providerId)],
    new Map([[providerId, SECRET]]),
    captureLogs().logger,
    store.clock.now,
  );
  return { subject, tokens, config: await configs.configuration(providerId) };
}

describe("tokensOf", () => {
  it("makes the access token's expiry absolute, and keeps what the answer lacks as null", () => {
    expect(
      tokensOf(
        { access_token: "a", refresh_token: "r", expires_in: 60, token_type: "bearer" } as never,
        1000,
      ),
    ).toEqual({ refresh: "r", access: "a", accessExpiresAt: 61_000 });
    expect(tokensOf({ access_token: "a", token_type: "bearer" } as never, 1000)).toEqual({
      refresh: null,
      access: "a",
      accessExpiresAt: null,
    });
  });
});

describe("recheck with a refresh token", () => {
  it("confirms the person with what the provider says now, and new tokens", async () => {
    const { subject, tokens, config } = await signedIn(refreshing, "corp");
    expect(tokens.refresh).not.toBeNull();
    refreshing.setPerson(subject, { email: `${subject}@example.com`, email_verified: true, groups: ["b"] });
    const answer = await recheck(config, subject, tokens, store.clock.now);
    expect(answer.kind).toBe("confirmed");
    if (answer.kind !== "confirmed") return;
    expect(answer.profile).toMatchObject({ sub: subject, groups: ["b"] });
    expect(answer.tokens.refresh).not.toBeNull();
    expect(answer.tokens.access).not.toBe(tokens.access);
    expect(answer.tokens.accessExpiresAt).toBeGreaterThan(store.clock.now());
    expect(refreshing.refreshes()).toBeGreaterThan(0);
  });

  it("is refused when the provider no longer knows the person (invalid_grant)", async () => {
    const { subject, tokens, config } = await signedIn(refreshing, "corp");
    refreshing.removePerson(subject);
    expect(await recheck(config, subject, tokens, store.clock.now)).toEqual({
      kind: "refused",
      reason: "invalid_grant",
    });
  });

  it("is refused with a refresh token the provider never issued", async () => {
    const { subject, tokens, config } = await signedIn(refreshing, "corp");
    expect(await recheck(config, subject, { ...tokens, refresh: "made-up" }, store.clock.now)).toEqual({
      kind: "refused",
      reason: "invalid_grant",
    });
  });

  it("concludes nothing about the person while the provider is down", async () => {
    const { subject, tokens, config } = await signedIn(refreshing, "corp");
    refreshing.setDown(true);
    const answer = await recheck(config, subject, tokens, store.clock.now);
    expect(answer.kind).toBe("unreachable");
  });
});

describe("recheck with an access token only", () => {
  it("confirms with userinfo while the access token lasts, keeping the same tokens", async () => {
    const { subject, tokens, config } = await signedIn(plain, "plain");
    expect(tokens.refresh).toBeNull();
    const answer = await recheck(config, subject, tokens, store.clock.now);
    expect(answer).toMatchObject({ kind: "confirmed", profile: { sub: subject }, tokens });
  });

  it("is refused once the access token has expired, or when there is none, without asking", async () => {
    const { subject, tokens, config } = await signedIn(plain, "plain");
    const asked = plain.userinfoRequests();
    const expired: ProviderTokens = { ...tokens, accessExpiresAt: store.clock.now() };
    const reason = "the access token expired and the provider gave no refresh token";
    expect(await recheck(config, subject, expired, store.clock.now)).toEqual({ kind: "refused", reason });
    expect(await recheck(config, subject, { ...tokens, access: null }, store.clock.now)).toEqual({
      kind: "refused",
      reason,
    });
    expect(plain.userinfoRequests()).toBe(asked);
  });

  it("is refused when the provider refuses the access token (invalid_token)", async () => {
    const { subject, tokens, config } = await signedIn(plain, "plain");
    expect(await recheck(config, subject, { ...tokens, access: "made-up" }, store.clock.now)).toEqual({
      kind: "refused",
      reason: "invalid_token",
    });
  });

  it("concludes nothing while the provider is down", async () => {
    const { subject, tokens, config } = await signedIn(plain, "plain");
    plain.setDown(true);
    expect((await recheck(config, subject, tokens, store.clock.now)).kind).toBe("unreachable");
  });
});
