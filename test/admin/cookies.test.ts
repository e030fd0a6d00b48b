// The admin listener's cookies: their names (__Host- when the dashboard is served over HTTPS), reading them from
// a real request's Cookie header, and the Set-Cookie values written.

import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { cookie, cookieNames, readCookies } from "../../src/admin/cookies.js";
import { type Listening, listen } from "../helpers/http.js";

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The cookies a real server reads from a request sent with `header`. */
async function cookiesSent(header: string): Promise<Record<string, string>> {
  let seen: Map<string, string> | undefined;
  server = await listen((req: IncomingMessage, res) => {
    seen = readCookies(req);
    res.end();
  });
  await fetch(server.url, { headers: { cookie: header } });
  return Object.fromEntries(seen ?? []);
}

describe("admin cookies", () => {
  it("are named with __Host- and marked secure behind an https:// external URL only", () => {
    expect(cookieNames("https://gw.example.com")).toEqual({
      session: "__Host-tg_session",
      signIn: "__Host-tg_sign_in",
      secure: true,
    });
    expect(cookieNames("http://gw.example.com")).toEqual({
      session: "tg_session",
      signIn: "tg_sign_in",
      secure: false,
    });
    expect(cookieNames(null).secure).toBe(false);
  });

  it("are read by name, the first of a name winning and malformed pairs skipped", async () => {
    expect(
      await cookiesSent("tg_session=abc; other=1; tg_session=evil; =nameless; novalue; b= x=y "),
    ).toEqual({
      tg_session: "abc",
      other: "1",
      b: "x=y",
    });
  });

  it("are none when the request has no Cookie header", async () => {
    server = await listen((req, res) => {
      res.end(String(readCookies(req).size));
    });
    expect(await (await fetch(server.url)).text()).toBe("0");
  });

  it("are set HttpOnly, SameSite=Lax on the whole site, Secure and Max-Age when asked", () => {
    expect(cookie("tg_session", "v", false)).toBe("tg_session=v; Path=/; HttpOnly; SameSite=Lax");
    expect(cookie("__Host-tg_session", "v", true, 3600)).toBe(
      "__Host-tg_session=v; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=3600",
    );
    expect(cookie("tg_session", "", false, 0)).toBe("tg_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
  });
});
