// The admin API's defence against cross-site requests, on requests a real server receives: a state-changing
// request must come from the dashboard's origin (Origin, else Sec-Fetch-Site, else Referer) and, on the
// session cookie, carry the session's x-csrf-token.

import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertCsrf, assertSameOrigin, changesState, dashboardOrigin } from "../../src/admin/csrf.js";
import { type Listening, listen } from "../helpers/http.js";

const ORIGIN = "https://gw.example.com";
let server: Listening;
let check: (req: IncomingMessage) => void;
beforeAll(async () => {
  server = await listen((req, res) => {
    try {
      check(req);
      res.end("ok");
    } catch (error) {
      res.end(`${(error as { code: string }).code}: ${(error as Error).message}`);
    }
  });
});
afterAll(() => server.close());

/** What the check says of a request sent with these headers. */
async function answer(headers: Record<string, string>, run: (req: IncomingMessage) => void): Promise<string> {
  check = run;
  return (await fetch(server.url, { method: "POST", headers })).text();
}
const sameOrigin = (req: IncomingMessage) => assertSameOrigin(req, ORIGIN);

describe("cross-site request checks", () => {
  it("let through a request whose Origin is the dashboard's, and refuse another", async () => {
    expect(await answer({ origin: ORIGIN }, sameOrigin)).toBe("ok");
    expect(await answer({ origin: "https://evil.example" }, sameOrigin)).toBe(
      "csrf_refused: Refused as a possible cross-site request: the request comes from https://evil.example, " +
        "not from the dashboard (https://gw.example.com).",
    );
  });

  it("fall back on Sec-Fetch-Site without an Origin (or with Origin: null)", async () => {
    expect(await answer({ "sec-fetch-site": "same-origin" }, sameOrigin)).toBe("ok");
    expect(await answer({ origin: "null", "sec-fetch-site": "cross-site" }, sameOrigin)).toMatch(
      /^csrf_refused: .*the browser says the request is cross-site\.$/,
    );
  });

  it("fall back on the Referer's origin last, and refuse a request that says nothing", async () => {
    expect(await answer({ referer: `${ORIGIN}/#/accounts` }, sameOrigin)).toBe("ok");
    expect(await answer({ referer: "https://evil.example/page" }, sameOrigin)).toMatch(
      /it comes from https:\/\/evil\.example\.$/,
    );
    expect(await answer({}, sameOrigin)).toMatch(/the request says nothing of where it comes from\.$/);
  });

  it("want the session's x-csrf-token besides the origin", async () => {
    const csrf = (req: IncomingMessage) => assertCsrf(req, ORIGIN, "token-of-the-session");
    expect(await answer({ origin: ORIGIN, "x-csrf-token": "token-of-the-session" }, csrf)).toBe("ok");
    expect(await answer({ origin: ORIGIN, "x-csrf-token": "token-of-another-one" }, csrf)).toMatch(
      /^csrf_refused: .*x-csrf-token header is missing or wrong/,
    );
    expect(await answer({ origin: ORIGIN }, csrf)).toMatch(/x-csrf-token header is missing or wrong/);
    expect(
      await answer({ origin: "https://evil.example", "x-csrf-token": "token-of-the-session" }, csrf),
    ).toMatch(/comes from https:\/\/evil\.example/);
  });

  it("apply to the methods that change state", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", undefined]) expect(changesState(method)).toBe(false);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) expect(changesState(method)).toBe(true);
  });

  it("take the dashboard's origin from admin.externalUrl, else from the request's Host", async () => {
    let origins: string[] = [];
    check = (req) => {
      origins = [dashboardOrigin(req, ORIGIN), dashboardOrigin(req, null)];
    };
    await fetch(server.url, { method: "POST" });
    expect(origins).toEqual([ORIGIN, server.url]);
  });
});
