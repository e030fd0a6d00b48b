// Reading a request body under a limit, over real HTTP: a declared length over the limit refused before a
// byte is read, a chunked body refused as soon as it passes the limit (and the 413 still delivered), a
// client that leaves reported rather than waited for.

import { type IncomingMessage, request } from "node:http";
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
    // Node reports the reset as the request's "aborted" error; a close without one is reported by readBody.
    await expect(outcomes[0]).rejects.toThrow(
      /^(aborted|client closed the connection while sending the body)$/,
    );
  });

  it("refuses at once a request already destroyed, whose events will never come", async () => {
    const read = readBody({ destroyed: true } as IncomingMessage, 10);
    expect(await settlesAtOnce(read)).toBe(true);
    await expect(read).rejects.toThrow("client closed the connection before its body was read");
  });
});

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
