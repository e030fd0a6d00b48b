import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import {
  clientResponseHeaders,
  prepareUpstreamHeaders,
  withoutContentLength,
} from "../../../src/proxy/relay/headers.js";

const token = `sk-tunnel-${"a".repeat(64)}`;

function request(headers: Record<string, string | string[]>): IncomingMessage {
  return { headers, socket: { remoteAddress: "10.0.0.7" } } as unknown as IncomingMessage;
}

describe("prepareUpstreamHeaders", () => {
  it("drops hop-by-hop headers, those named in Connection, Expect, and every copy of the caller's key", () => {
    const req = request({
      host: "api.example.com",
      connection: "keep-alive, x-hop",
      "keep-alive": "timeout=5",
      "x-hop": "1",
      te: "trailers",
      "transfer-encoding": "chunked",
      upgrade: "websocket",
      "proxy-authorization": "Basic x",
      authorization: `Bearer ${token}`,
      "x-api-key": token,
      "x-custom-secret": `prefix ${token}`,
      "content-type": "application/json",
      expect: "100-continue",
    });
    prepareUpstreamHeaders(req, {
      requestId: "rid",
      callerToken: token,
      upstreamAuthorization: undefined,
      bodyLength: 12,
      identityEncoding: false,
      protocol: "http",
    });
    expect(req.headers).toEqual({
      host: "api.example.com",
      "content-type": "application/json",
      "content-length": "12",
      "x-forwarded-for": "10.0.0.7",
      "x-forwarded-proto": "http",
      "x-forwarded-host": "api.example.com",
      "x-request-id": "rid",
    });
  });

  it("sends the configured upstream key instead, appends to X-Forwarded-For and asks for identity encoding", () => {
    const req = request({
      authorization: `Bearer ${token}`,
      "x-forwarded-for": "1.2.3.4",
      "accept-encoding": "gzip, br",
    });
    prepareUpstreamHeaders(req, {
      requestId: "rid",
      callerToken: token,
      upstreamAuthorization: "Bearer upstream-secret",
      bodyLength: 0,
      identityEncoding: true,
      protocol: "https",
    });
    expect(req.headers).toMatchObject({
      authorization: "Bearer upstream-secret",
      "x-forwarded-for": "1.2.3.4, 10.0.0.7",
      "x-forwarded-proto": "https",
      "accept-encoding": "identity",
    });
    expect(req.headers["content-length"]).toBeUndefined();
  });

  it("does not carry the caller's key into X-Forwarded-For or X-Forwarded-Host", () => {
    const req = request({ host: `h-${token}`, "x-forwarded-for": `1.2.3.4, ${token}` });
    prepareUpstreamHeaders(req, {
      requestId: "rid",
      callerToken: token,
      upstreamAuthorization: undefined,
      bodyLength: 0,
      identityEncoding: false,
      protocol: "http",
    });
    expect(JSON.stringify(req.headers)).not.toContain(token);
    expect(req.headers["x-forwarded-for"]).toBe("10.0.0.7");
    expect(req.headers["x-forwarded-host"]).toBeUndefined();
  });
});

describe("clientResponseHeaders", () => {
  it("drops hop-by-hop headers and the upstream's request id, and the length of a rewritten body", () => {
    expect(
      clientResponseHeaders(
        {
          connection: "close",
          "transfer-encoding": "chunked",
          "content-length": "5",
          "x-request-id": "up",
          server: "vllm",
        },
        true,
      ),
    ).toEqual({ server: "vllm" });
    expect(clientResponseHeaders({ "content-length": "5" }, false)).toEqual({ "content-length": "5" });
  });
});

describe("withoutContentLength", () => {
  it("drops the length from a copy, leaving the headers it was given alone, and copies nothing without one", () => {
    const headers = { "content-type": "text/event-stream", "content-length": "12", "x-a": "1" };
    expect(withoutContentLength(headers)).toEqual({ "content-type": "text/event-stream", "x-a": "1" });
    expect(headers["content-length"]).toBe("12");
    const stream = { "content-type": "text/event-stream" };
    expect(withoutContentLength(stream)).toBe(stream);
  });
});
