// Bodies no model server could read, sent as a hostile client would, byte by byte on raw sockets: JSON that
// does not parse, a body cut short of its Content-Length (the client half-closing or resetting), a
// Content-Length shorter than what follows, a chunked body that never ends, a multipart form cut short. Each
// gets 400 or a closed connection, and the model server sees nothing, the balance is untouched and nothing
// is left reserved in Redis.

import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";

let t: TestGateway;
let upstream: StubUpstream;
/**
 * Requests that reached the model server, counted as soon as their head arrived (bodies need not end); the
 * gateway's start-up check of the model list is a GET, and not counted.
 */
let arrived = 0;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

async function setup(): Promise<string> {
  upstream = await startStubUpstream();
  arrived = 0;
  upstream.server.prependListener("request", (req) => {
    if (req.method !== "GET") arrived++;
  });
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
  return (await t.newKey({ balance: "100" })).value;
}

/**
 * Writes `parts` on a raw connection (one write each, in turn), then half-closes ("end", still reading) or
 * resets ("reset") it, or waits ("wait") for the gateway to answer and close; resolves with what came back.
 */
function raw(parts: (string | Buffer)[], then: "end" | "reset" | "wait"): Promise<string> {
  const { port } = new URL(t.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk;
      // One answer is all a refused request gets; the test need not wait for the gateway's linger.
      if (then === "wait" && /\r\n\r\n[\s\S]*\}$/.test(received)) socket.destroy();
    });
    socket.on("error", () => resolve(received));
    socket.on("close", () => resolve(received));
    const write = (i: number) => {
      if (i < parts.length) {
        socket.write(parts[i] as string | Buffer, () => setImmediate(() => write(i + 1)));
      } else if (then === "end") socket.end();
      else if (then === "reset") socket.resetAndDestroy();
    };
    write(0);
  });
}

function head(key: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\n${lines.join("")}\r\n`;
}

const BODY = JSON.stringify({ model: "demo-small", messages: [{ role: "user", content: "say hi please" }] });

/** The status line of a raw answer ("" for none: the connection closed without one). */
const statusOf = (answer: string) => /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? "";

/** Nothing reached the model server, nothing was charged, nothing is left reserved. */
async function expectNothingForwardedOrHeld(): Promise<void> {
  // A request the gateway is still working on would show in flight; every one here has ended.
  expect(arrived).toBe(0);
  expect(upstream.requests).toHaveLength(0);
  expect((await t.store.accounts.require("acme")).balance).toBe(100_000_000);
  expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
}

describe("bodies that never reach the model server", () => {
  it("refuses a body that is not valid JSON with 400 invalid_request naming the problem", async () => {
    const key = await setup();
    const res = await t.fetch("/v1/chat/completions", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: BODY.slice(0, 40),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "invalid_request",
      message: "The request body is not valid JSON: it ends before the JSON text does (was it cut short?).",
    });
    const garbage = await t.fetch("/v1/embeddings", { method: "POST", key, body: "model=m&input=x" });
    expect(garbage.status).toBe(400);
    await expectNothingForwardedOrHeld();
  });

  it("never forwards a body cut short of its Content-Length, whether the client half-closes or resets", async () => {
    const key = await setup();
    const declared = head(key, { "Content-Type": "application/json", "Content-Length": BODY.length + 50 });
    const halfClosed = await raw([declared, BODY], "end");
    expect(["400", ""]).toContain(statusOf(halfClosed));
    await raw([declared, BODY], "reset");
    await expectNothingForwardedOrHeld();
  });

  it("never forwards a body followed by more bytes than its Content-Length declares", async () => {
    const key = await setup();
    // The declared length cuts the JSON short (the case): the body read is not JSON.
    const cut = await raw([head(key, { "Content-Length": 40 }) + BODY], "wait");
    expect(statusOf(cut)).toBe("400");
    // The declared length ends on valid JSON, and the bytes after it are no HTTP: the parser refuses the
    // connection, and the request read before it is not forwarded.
    const padded = `${BODY}${"x".repeat(30)}\r\n\r\n`;
    const lied = await raw([head(key, { "Content-Length": BODY.length }) + padded], "wait");
    expect(statusOf(lied)).toBe("400");
    await expectNothingForwardedOrHeld();
  });

  it("never forwards a chunked body that does not end", async () => {
    const key = await setup();
    const chunked = head(key, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    const answer = await raw([chunked, `${BODY.length.toString(16)}\r\n${BODY}\r\n`], "end");
    expect(["400", ""]).toContain(statusOf(answer));
    await expectNothingForwardedOrHeld();
  });

  it("refuses a multipart upload cut short with 400, without crashing on the part's error", async () => {
    const key = await setup();
    const boundary = "----tunnel";
    const form =
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
      "Content-Type: audio/wav\r\n\r\nRIFF....WAVE";
    const res = await t.fetch("/v1/audio/transcriptions", {
      method: "POST",
      key,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/^The request body is not a valid multipart form: /);
    // The gateway is still up and forwards a whole request.
    const whole = await t.fetch("/v1/chat/completions", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: BODY,
    });
    expect(whole.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });
});
