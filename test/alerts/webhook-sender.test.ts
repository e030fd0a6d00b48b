// One webhook request against real HTTP servers: headers and signature, what counts as delivered, the time
// limit, redirects, and the refusal of non-public addresses for accounts' webhooks.

import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isNonPublicAddress, sendWebhook, type WebhookRequest } from "../../src/alerts/webhook-sender.js";

let server: Server | undefined;
afterEach(async () => {
  if (server?.listening) {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  }
});

async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handle);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const request = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  secret: "whsec_test",
  eventId: "evt_1",
  body: '{"id":"evt_1"}',
  timestamp: 1_795_292_755,
  timeoutMs: 2000,
  publicOnly: false,
  userAgent: "tunnel-gateway-webhooks/1",
  ...overrides,
});

describe("sendWebhook", () => {
  it("posts the body with the event id and the signature of t.body", async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const url = await serve((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        seen = { headers: req.headers, body };
        res.writeHead(204).end();
      });
    });
    expect(await sendWebhook(request(url))).toEqual({ ok: true, statusCode: 204, error: null });
    const hmac = createHmac("sha256", "whsec_test").update('1795292755.{"id":"evt_1"}').digest("hex");
    expect(seen?.body).toBe('{"id":"evt_1"}');
    expect(seen?.headers).toMatchObject({
      "content-type": "application/json",
      "x-tunnel-event-id": "evt_1",
      "x-tunnel-signature": `t=1795292755,v1=${hmac}`,
      "user-agent": "tunnel-gateway-webhooks/1",
    });
  });

  it("counts only 2xx as delivered, and does not follow redirects", async () => {
    const url = await serve((req, res) => {
      if (req.url === "/hook") res.writeHead(302, { location: "/elsewhere" }).end();
      else res.writeHead(200).end();
    });
    expect(await sendWebhook(request(url))).toEqual({
      ok: false,
      statusCode: 302,
      error: "HTTP 302: redirects are not followed",
    });
  });

  it("gives up on an endpoint that does not answer within the time limit", async () => {
    const url = await serve(() => {});
    const started = Date.now();
    expect(await sendWebhook(request(url, { timeoutMs: 100 }))).toEqual({
      ok: false,
      statusCode: null,
      error: "no answer within 100 ms",
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reports a refused connection by its address, never the URL's path", async () => {
    const url = await serve((_req, res) => res.end());
    server?.close();
    await once(server as Server, "close");
    const attempt = await sendWebhook(request(`${url}/secret-token-in-path`));
    expect(attempt).toMatchObject({ ok: false, statusCode: null });
    expect(attempt.error).toMatch(/ECONNREFUSED 127\.0\.0\.1/);
    expect(attempt.error).not.toContain("secret-token");
  });

  it("refuses non-public addresses for accounts' webhooks, by IP or by what a name resolves to", async () => {
    let reached = false;
    const url = await serve((_req, res) => {
      reached = true;
      res.end();
    });
    const byAddress = await sendWebhook(request(url, { publicOnly: true }));
    expect(byAddress).toEqual({
      ok: false,
      statusCode: null,
      error: "127.0.0.1 is not a public address (alerts.allowPrivateNetworks is off)",
    });
    const byName = await sendWebhook(request(url.replace("127.0.0.1", "localhost"), { publicOnly: true }));
    expect(byName.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
    expect(reached).toBe(false);
  });
});

describe("isNonPublicAddress", () => {
  it("knows private, loopback, link-local and mapped addresses from public ones", () => {
    for (const address of [
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "127.0.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "203.0.113.5", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
  });
});
