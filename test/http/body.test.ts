// Reading a request body under a limit, over real HTTP: a declared length over the limit refused before a
// byte is read, a chunked body refused as soon as it passes the limit (and the 413 still delivered), a
// client that leaves reported rather than waited for.

import { type IncomingMessage, request } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayError } from "../../src/core/errors.js";
import { checkDeclaredLength, readBody, tooLarge } from "../../src/http/body.js";
import { sendError } from "../../src/http/respond.js";
import { settlesAtOnce } from "../helpers/at-once.js";
import { type Listening, listen } from "../helpers/http.js";
import { waitUntil } from "../helpers/wait.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A listener that reads each body under `limit` and hands the outcome to the test. */
async function reader(limit: number) {
  const outcomes: Promise<Buffer>[] = [];
  server = await listen((req, res) => {
    const reading = readBody(req, limit);
    outcomes.push(reading);
    reading.then(
      (body) => res.end(`read ${body.length}`),
      (error: unknown) => {
        if (error instanceof GatewayError) sendError(res, error);
        else res.destroy();
      },
    );
  });
  return { url: server.url, outcomes };
}

/** Sends `chunks` as a chunked body, one per turn; `abort` destroys the request after them instead of ending it. */
function send(
  url: string,
  chunks: Buffer[],
  abort = false,
): Promise<{ status: number; text: string } | Error> {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST" }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", resolve);
    const write = (i: number) => {
      if (i === chunks.length) {
        if (abort) req.destroy();
        else req.end();
        return;
      }
      req.write(chunks[i], () => setImmediate(() => write(i + 1)));
    };
    write(0);
  });
}

describe("readBody", () => {
  it("reads a body sent in several chunks, byte for byte", async () => {
    const { url, outcomes } = await reader(1024);
    const parts = [Buffer.from('{"model":'), Buffer.from('"m","x":"₽"'), Buffer.from("}")];
    expect(await send(url, parts)).toEqual({ status: 200, text: `read ${Buffer.concat(parts).length}` });
    expect(String(await outcomes[0])).toBe('{"model":"m","x":"₽"}');
  });

  it("reads a body of exactly the limit, and refuses one byte more with 413 delivered to the client", async () => {
    const { url, outcomes } = await reader(10);
    expect(await send(url, [Buffer.alloc(6), Buffer.alloc(4)])).toMatchObject({ status: 200 });
    const refused = await send(url, [Buffer.alloc(6), Buffer.alloc(5), Buffer.alloc(1000)]);
    expect(refused).toMatchObject({ status: 413 });
    await expect(outcomes[1]).rejects.toMatchObject({
      code: "payload_too_large",
      message: "The request body is larger than the gateway accepts (10 bytes).",
    });
  });

  it("reports a client that leaves while sending its body, rather than waiting for it", async () => {
    const { url, outcomes } = await reader(1024);
    await send(url, [Buffer.from("partial")], true);
    await waitUntil(() => outcomes.length === 1, "the server to receive the request");
    // Node reports the reset as the request's "aborted" error, or closes it without one: either way the
    // body is refused as not received whole, with how much of it came.
    await expect(outcomes[0]).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(
        /^The request body was not received whole: the connection (failed|closed) after 7 bytes\. /,
      ),
    });
  });

  it("refuses at once a request already destroyed, whose events will never come", async () => {
    const read = readBody({ destroyed: true } as IncomingMessage, 10);
    expect(await settlesAtOnce(read)).toBe(true);
    await expect(read).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(
        /^The request body was not received whole: the connection closed after 0/,
      ),
    });
  });

  it("refuses a body shorter than its Content-Length, whether the client half-closes or resets", async () => {
    const { url, outcomes } = await reader(1024);
    const { port } = new URL(url);
    const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";
    // Half-closed: the client sends 10 of 100 bytes and ends its side, still reading.
    const halfClosed = await rawExchange(Number(port), `${head}0123456789`, "end");
    await waitUntil(() => outcomes.length === 1, "the server to receive the request");
    await expect(outcomes[0]).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("after 10 bytes of the 100 its Content-Length declares"),
    });
    // Nothing but a refusal can reach the client: never a 200 for a body read in part.
    expect(halfClosed).not.toMatch(/^HTTP\/1\.1 200/);
    await rawExchange(Number(port), `${head}0123456789`, "reset");
    await waitUntil(() => outcomes.length === 2, "the server to receive the second request");
    await expect(outcomes[1]).rejects.toMatchObject({ code: "invalid_request" });
  });
});

/**
 * Writes `bytes` on a raw connection, then ends the client's side ("end", still reading) or resets it
 * ("reset"); returns what the server sent back before the connection closed.
 */
function rawExchange(port: number, bytes: string, then: "end" | "reset"): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk));
    socket.on("error", () => resolve(received));
    socket.on("close", () => resolve(received));
    socket.write(bytes, () => {
      if (then === "end") socket.end();
      else setImmediate(() => socket.resetAndDestroy());
    });
  });
}

describe("checkDeclaredLength", () => {
  const withLength = (length?: string) =>
    ({ headers: length === undefined ? {} : { "content-length": length } }) as IncomingMessage;

  it("refuses a declared length over the limit, and lets the limit itself and an undeclared length through", () => {
    expect(() => checkDeclaredLength(withLength("11"), 10)).toThrow(
      expect.objectContaining({ code: "payload_too_large", status: 413 }),
    );
    expect(() => checkDeclaredLength(withLength("10"), 10)).not.toThrow();
    expect(() => checkDeclaredLength(withLength(), 10)).not.toThrow();
  });
});

describe("tooLarge", () => {
  it("names the limit in bytes", () => {
    expect(tooLarge(1_048_576).message).toBe(
      "The request body is larger than the gateway accepts (1048576 bytes).",
    );
  });
});
