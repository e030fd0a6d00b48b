// Whether a request came over HTTPS — by its socket, or by X-Forwarded-Proto from a trusted proxy only —
// and which requests plain HTTP is refused for.

import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { TransportSecurity } from "../../src/server/transport-security.js";

function security(settings: Record<string, unknown> = {}): TransportSecurity {
  return new TransportSecurity(configSchema.parse({ security: settings }).security);
}

function request(peer: string, headers: Record<string, string> = {}, encrypted = false): IncomingMessage {
  return { socket: { encrypted, remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

describe("isSecure", () => {
  it("trusts a TLS socket, whoever the peer", () => {
    expect(security().isSecure(request("203.0.113.9", {}, true))).toBe(true);
  });

  it("ignores X-Forwarded-Proto from anyone but a trusted proxy", () => {
    const plain = security();
    expect(plain.isSecure(request("10.0.0.5", { "x-forwarded-proto": "https" }))).toBe(false);
    const behindProxy = security({ trustedProxies: ["10.0.0.0/8"] });
    expect(behindProxy.isSecure(request("203.0.113.9", { "x-forwarded-proto": "https" }))).toBe(false);
    expect(behindProxy.isSecure(request("10.0.0.5", { "x-forwarded-proto": "https" }))).toBe(true);
    expect(behindProxy.isSecure(request("::ffff:10.0.0.5", { "x-forwarded-proto": "HTTPS" }))).toBe(true);
  });

  it("reads the first protocol a chain of proxies gives, and nothing else as HTTPS", () => {
    const behindProxy = security({ trustedProxies: ["10.0.0.5"] });
    expect(behindProxy.isSecure(request("10.0.0.5", { "x-forwarded-proto": " https , http" }))).toBe(true);
    for (const proto of ["http, https", "http", "", "wss"]) {
      expect(behindProxy.isSecure(request("10.0.0.5", { "x-forwarded-proto": proto })), proto).toBe(false);
    }
    expect(behindProxy.isSecure(request("10.0.0.5"))).toBe(false);
  });
});

describe("refuses", () => {
  it("refuses plain HTTP only when HTTPS is required, and never the probes", () => {
    const required = security({ requireHttps: true });
    expect(required.refuses("/v1/chat/completions", false)).toBe(true);
    expect(required.refuses("/v1/key", false)).toBe(true);
    expect(required.refuses("/v1/chat/completions", true)).toBe(false);
    expect(required.refuses("/healthz", false)).toBe(false);
    expect(required.refuses("/readyz", false)).toBe(false);
    expect(security().refuses("/v1/chat/completions", false)).toBe(false);
  });
});

describe("hsts", () => {
  it("is the configured max-age with subdomains, or null when switched off", () => {
    expect(security().hsts).toBe("max-age=31536000; includeSubDomains");
    expect(security({ hstsMaxAgeSeconds: 60 }).hsts).toBe("max-age=60; includeSubDomains");
    expect(security({ hstsMaxAgeSeconds: 0 }).hsts).toBeNull();
  });
});

describe("clientAddress", () => {
  it("is the peer, or behind trusted proxies the nearest forwarded address that is not one of them", () => {
    const forwarded = { "x-forwarded-for": "198.51.100.1, 203.0.113.7, 10.0.0.9" };
    expect(security().clientAddress(request("10.0.0.5", forwarded))).toBe("10.0.0.5");
    const behindProxy = security({ trustedProxies: ["10.0.0.0/8"] });
    // A client may write anything into the header: only what the trusted proxies added counts.
    expect(behindProxy.clientAddress(request("10.0.0.5", forwarded))).toBe("203.0.113.7");
    expect(behindProxy.clientAddress(request("203.0.113.9", forwarded))).toBe("203.0.113.9");
    expect(behindProxy.clientAddress(request("10.0.0.5", { "x-forwarded-for": "10.0.0.8" }))).toBe(
      "10.0.0.5",
    );
    expect(behindProxy.clientAddress(request("10.0.0.5"))).toBe("10.0.0.5");
  });
});
