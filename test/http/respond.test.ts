// How the listeners write JSON answers and errors of the table, over real HTTP: the headers each status
// needs, byte-exact lengths, OpenAI's or Anthropic's error shape, and a connection cut when an error comes
// after the answer has started.

import { afterEach, describe, expect, it } from "vitest";
import { GatewayError } from "../../src/core/errors.js";
import { errorFormatOf, sendError, sendJson } from "../../src/http/respond.js";
import { type Listening, listen } from "../helpers/http.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("sendJson", () => {
  it("answers with the status, the JSON, its length in bytes, and no caching", async () => {
    server = await listen((_req, res) => sendJson(res, 201, { name: "Ёлка ₽" }));
    const res = await fetch(server.url);
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
    expect(JSON.parse(bytes.toString("utf8"))).toEqual({ name: "Ёлка ₽" });
  });
});

describe("sendError", () => {
  async function answer(error: GatewayError, options: Parameters<typeof sendError>[2] = {}) {
    server = await listen((_req, res) => sendError(res, error, options));
    const res = await fetch(server.url);
    const body = await res.json();
    await server.close();
    server = undefined;
    return { res, body };
  }

  it("writes the error in OpenAI's shape by default, and Anthropic's when asked", async () => {
    const openai = await answer(new GatewayError("budget_exceeded", "used up"));
    expect(openai.res.status).toBe(403);
    expect(openai.res.headers.get("cache-control")).toBe("no-store");
    expect(openai.body).toEqual({
      error: { message: "used up", type: expect.any(String), code: "budget_exceeded" },
    });
    const anthropic = await answer(new GatewayError("budget_exceeded", "used up"), { format: "anthropic" });
    expect(anthropic.body).toMatchObject({
      type: "error",
      error: { message: "used up", code: "budget_exceeded" },
    });
  });

  it("adds WWW-Authenticate to a 401, Retry-After to a 503 and Allow to a 405, and to nothing else", async () => {
    const unauthorized = await answer(new GatewayError("invalid_api_key"));
    expect(unauthorized.res.headers.get("www-authenticate")).toBe('Bearer realm="tunnel-gateway"');
    expect(unauthorized.res.headers.get("retry-after")).toBeNull();
    const unavailable = await answer(new GatewayError("service_unavailable"));
    expect(unavailable.res.status).toBe(503);
    expect(unavailable.res.headers.get("retry-after")).toBe("1");
    const method = await answer(new GatewayError("method_not_allowed"), { allow: "GET, HEAD" });
    expect(method.res.headers.get("allow")).toBe("GET, HEAD");
    const invalid = await answer(new GatewayError("invalid_request"));
    for (const header of ["www-authenticate", "retry-after", "allow"]) {
      expect(invalid.res.headers.get(header)).toBeNull();
    }
  });

  it("cuts the connection when the answer has already started, rather than append an error to it", async () => {
    server = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: partial\n\n", () => sendError(res, new GatewayError("upstream_unavailable")));
    });
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow("terminated");
  });
});

describe("errorFormatOf", () => {
  it("answers Anthropic's paths in Anthropic's shape and everything else in OpenAI's", () => {
    for (const path of [
      "/v1/messages",
      "/v1/messages/count_tokens",
      "//v1//messages",
      "/V1/Messages?beta=true",
    ]) {
      expect(errorFormatOf(path), path).toBe("anthropic");
    }
    for (const path of ["/v1/chat/completions", "/v1/messagesx", "/messages", "/api/v1/messages", "/"]) {
      expect(errorFormatOf(path), path).toBe("openai");
    }
  });
});
