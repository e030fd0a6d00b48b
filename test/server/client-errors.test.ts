// Requests Node's HTTP parser refuses before the gateway's handler sees them: they get the error table's
// JSON body and a log line like every other refusal, and the log line holds none of what was sent.

import { request } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";

let t: TestGateway;
afterEach(async () => {
  await t?.close();
});

function send(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/models`, { headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", body }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("requests the HTTP parser refuses", () => {
  it("answer 431 headers_too_large with a JSON body to 20 KB of headers, and log it without the headers", async () => {
    t = await startTestGateway();
    const key = await t.newKey();
    const cookie = `session=${"c0ffee".repeat(3400)}`;
    const res = await send(t.url, { authorization: `Bearer ${key.value}`, cookie });
    expect(res.status).toBe(431);
    expect(res.type).toBe("application/json; charset=utf-8");
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: "The request's headers are too large. Send smaller headers (cookies, long tokens).",
        type: "invalid_request_error",
        code: "headers_too_large",
      },
    });
    expect(t.logs.filter((line) => line.msg === "request refused")).toEqual([
      expect.objectContaining({ status: 431, code: "headers_too_large", request_id: null, path: null }),
    ]);
    const logged = JSON.stringify(t.logs);
    expect(logged).not.toContain("c0ffee");
    expect(logged).not.toContain(key.value.slice(10));
  });

  it("answer 400 invalid_request to bytes that are not HTTP", async () => {
    t = await startTestGateway();
    const { port } = new URL(t.url);
    const socket = connect(Number(port), "127.0.0.1");
    socket.end("NOT HTTP AT ALL\r\n\r\n");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    await new Promise((resolve) => socket.on("close", resolve));
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: { code: "invalid_request", type: "invalid_request_error" },
    });
  });
});
