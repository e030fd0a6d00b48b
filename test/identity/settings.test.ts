// The identity layer's settings from the configuration: every duration in milliseconds from the unit the file
// gives it in, the dashboard's origin, and whether anyone can sign in at all.

import { describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { identitySettings, signInConfigured } from "../../src/identity/settings.js";

const settingsOf = (input: ConfigInput) => identitySettings(configSchema.parse(input));

describe("identity settings", () => {
  it("turn the file's minutes, hours, days and seconds into milliseconds", () => {
    const settings = settingsOf({
      signIn: {
        local: { enabled: true, minPasswordLength: 14, passwordLinkHours: 2 },
        attempts: { maxFailures: 4, windowSeconds: 30, firstLockSeconds: 10, longestLockSeconds: 900 },
        sessions: { idleMinutes: 15, absoluteHours: 8 },
        invitations: { ttlDays: 3 },
        apiTokens: { maxDays: 90 },
        providerCheck: { intervalMinutes: 10, graceMinutes: 120 },
      },
    });
    expect(settings).toMatchObject({
      localUsers: true,
      minPasswordLength: 14,
      passwordLinkMs: 2 * 3_600_000,
      attempts: {
        limit: 4,
        windowMs: 30_000,
        firstLockMs: 10_000,
        longestLockMs: 900_000,
        memoryMs: 86_400_000,
      },
      idleMs: 15 * 60_000,
      absoluteMs: 8 * 3_600_000,
      invitationMs: 3 * 86_400_000,
      maxTokenMs: 90 * 86_400_000,
      providerCheckMs: 10 * 60_000,
      providerGraceMs: 120 * 60_000,
      scimProvider: null,
      externalUrl: null,
    });
  });

  it("take the dashboard's origin from admin.externalUrl", () => {
    expect(settingsOf({ admin: { externalUrl: "https://gw.example.com/" } }).externalUrl).toBe(
      "https://gw.example.com",
    );
  });

  it("say people can sign in with local passwords on, or a provider configured, and not otherwise", () => {
    expect(signInConfigured(settingsOf({}))).toBe(false);
    expect(signInConfigured(settingsOf({ signIn: { local: { enabled: true } } }))).toBe(true);
    const provider = { id: "corp", name: "Corp", issuer: "https://id.corp.example", clientId: "gw" };
    const withProvider = settingsOf({ signIn: { providers: [provider], scim: { provider: "corp" } } });
    expect(signInConfigured(withProvider)).toBe(true);
    expect(withProvider.scimProvider).toBe("corp");
  });
});
