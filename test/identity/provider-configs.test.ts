// The configured providers as openid-client knows them, against a real OpenID provider on loopback: settings
// and a token cipher per provider (none for a public client), discovery once and shared by callers at the same
// moment, a provider that cannot be reached refused as identity_provider_unavailable and asked again only 30
// seconds later, plain HTTP allowed on loopback only, and an id not configured refused as provider_not_found.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderConfigs } from "../../src/identity/provider-configs.js";
import type { ProviderSettings } from "../../src/identity/settings.js";
import { TestClock } from "../helpers/clock.js";
import { captureLogs } from "../helpers/logs.js";
import { startIdentityProvider, type TestIdentityProvider } from "../helpers/oidc-provider.js";

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startIdentityProvider({
    clients: [
      { clientId: "gateway", clientSecret: "s3cret-s3cret-s3cret", redirectUris: ["http://127.0.0.1/cb"] },
    ],
  });
});
afterAll(() => idp.close());

function settings(id: string, issuer = idp.issuer): ProviderSettings {
  return { id, name: id.toUpperCase(), issuer, clientId: "gateway" } as ProviderSettings;
}

function configs(providers: ProviderSettings[], secrets: [string, string | null][] = []) {
  const logs = captureLogs();
  const clock = new TestClock();
  return { logs, clock, configs: new ProviderConfigs(providers, new Map(secrets), logs.logger, clock.now) };
}

describe("ProviderConfigs", () => {
  it("knows each provider's settings, and a cipher only for a confidential client", () => {
    const { configs: known } = configs(
      [settings("corp"), settings("public")],
      [["corp", "s3cret-s3cret-s3cret"]],
    );
    expect(known.settings("corp").name).toBe("CORP");
    expect(known.cipher("corp")).not.toBeNull();
    expect(known.cipher("public")).toBeNull();
  });

  it("refuses an id not configured with provider_not_found", async () => {
    const { configs: known } = configs([settings("corp")]);
    expect(() => known.settings("other")).toThrow(expect.objectContaining({ code: "provider_not_found" }));
    expect(() => known.cipher("other")).toThrow(expect.objectContaining({ code: "provider_not_found" }));
    expect(() => known.configuration("other")).toThrow(
      expect.objectContaining({ code: "provider_not_found" }),
    );
  });

  it("discovers a provider on plain HTTP at loopback once, sharing one discovery among callers, and logs it", async () => {
    const { configs: known, logs } = configs([settings("corp")], [["corp", "s3cret-s3cret-s3cret"]]);
    const [first, second] = await Promise.all([known.configuration("corp"), known.configuration("corp")]);
    expect(first).toBe(second);
    expect(first.serverMetadata().issuer).toBe(idp.issuer);
    expect(await known.configuration("corp")).toBe(first);
    expect(logs.lines.filter((line) => line.msg === "identity provider discovered")).toEqual([
      expect.objectContaining({ provider: "corp", issuer: idp.issuer, level: 30 }),
    ]);
  });

  it("warms up in the background: the configuration is there by the time a sign-in asks", async () => {
    const { configs: known, logs } = configs([settings("corp")]);
    known.warmUp();
    const config = await known.configuration("corp");
    expect(config.clientMetadata().client_id).toBe("gateway");
    expect(logs.messages().filter((m) => m === "identity provider discovered")).toHaveLength(1);
  });

  it("refuses while the provider is down, asks again only 30 seconds after a failure, then succeeds", async () => {
    const { configs: known, logs, clock } = configs([settings("corp")]);
    idp.setDown(true);
    try {
      await expect(known.configuration("corp")).rejects.toMatchObject({
        code: "identity_provider_unavailable",
        message: `The identity provider CORP (${idp.issuer}) cannot be reached right now; retry shortly.`,
      });
      expect(logs.lines.at(-1)).toMatchObject({ level: 40, provider: "corp" });
      idp.setDown(false);
      clock.advance(29_999);
      await expect(known.configuration("corp")).rejects.toMatchObject({
        code: "identity_provider_unavailable",
      });
      expect(logs.lines.filter((line) => line.level === 40)).toHaveLength(1); // not asked again
    } finally {
      idp.setDown(false);
    }
    clock.advance(1);
    await expect(known.configuration("corp")).resolves.toBeTruthy();
  });

  it("refuses a plain-HTTP issuer that is not on loopback, without sending it anything", async () => {
    const { configs: known, logs } = configs([settings("far", "http://gateway.invalid/")]);
    await expect(known.configuration("far")).rejects.toMatchObject({ code: "identity_provider_unavailable" });
    expect(String(logs.lines.at(-1)?.err)).toMatch(/https/i);
  });
});
