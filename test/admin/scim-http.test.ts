// SCIM's HTTP plumbing on a real HTTP listener (the SCIM routes themselves: test/admin/scim-*.test.ts and the
// e2e scenarios): a body taken as SCIM JSON or JSON only, refused as invalidSyntax when it is not JSON, nests
// deeper than 32 levels, or is over 1 MiB; answers as application/scim+json never cached, with a Location when
// one is given and no body for a 204; errors in SCIM's shape with the error table's status, a 401 saying how
// to authenticate and a 405 what is allowed.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SCIM_BODY_BYTES, scimBody, sendScim, sendScimError } from "../../src/admin/scim-http.js";
import { GatewayError } from "../../src/core/errors.js";
import { type Listening, listen } from "../helpers/http.js";

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
let server: Listening;
beforeAll(async () => {
  server = await listen(async (req, res) => {
    try {
      if (req.url === "/created")
        return sendScim(res, 201, { id: "x" }, "https://gw.example.com/scim/v2/Users/x");
      if (req.url === "/empty") return sendScim(res, 204, undefined);
      if (req.url === "/unauthorized") return sendScimError(res, new GatewayError("scim_unauthorized"));
      if (req.url === "/method")
        return sendScimError(res, new GatewayError("method_not_allowed", "No."), "GET, POST");
      sendScim(res, 200, { echo: await scimBody(req) });
    } catch (error) {
      sendScimError(res, error as GatewayError);
    }
  });
});
afterAll(() => server?.close());

const post = (body: string, type = "application/scim+json") =>
  fetch(`${server.url}/echo`, { method: "POST", headers: { "content-type": type }, body });

describe("scimBody", () => {
  it("takes a body sent as application/scim+json or application/json", async () => {
    for (const type of ["application/scim+json", "application/json; charset=utf-8"]) {
      const res = await post('{"userName":"ann@example.com"}', type);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ echo: { userName: "ann@example.com" } });
    }
  });

  it("refuses another content type, a body that is not JSON, and one nested deeper than 32 levels", async () => {
    const refusals = [
      [await post("{}", "text/plain"), "Send the body as JSON with Content-Type: application/scim+json."],
      [await post("{not json"), "The body is not valid JSON."],
      [
        await post(`${"[".repeat(33)}${"]".repeat(33)}`),
        "The body nests deeper than 32 levels; a SCIM resource never does.",
      ],
    ] as const;
    for (const [res, detail] of refusals) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        schemas: [ERROR_SCHEMA],
        status: "400",
        scimType: "invalidSyntax",
        detail,
      });
    }
    expect((await post(`${"[".repeat(32)}${"]".repeat(32)}`)).status).toBe(200);
  });

  it("refuses a body over 1 MiB", async () => {
    const res = await post(JSON.stringify({ big: "x".repeat(MAX_SCIM_BODY_BYTES) }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { schemas: string[] }).schemas).toEqual([ERROR_SCHEMA]);
  });
});

describe("sendScim and sendScimError", () => {
  it("answer as SCIM JSON, never cached, with a Location when given and no body for a 204", async () => {
    const created = await fetch(`${server.url}/created`);
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toBe("application/scim+json; charset=utf-8");
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.headers.get("location")).toBe("https://gw.example.com/scim/v2/Users/x");
    const empty = await fetch(`${server.url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.headers.get("content-type")).toBeNull();
    expect(await empty.text()).toBe("");
  });

  it("say how to authenticate on a 401, and what is allowed on a 405", async () => {
    const unauthorized = await fetch(`${server.url}/unauthorized`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("www-authenticate")).toBe('Bearer realm="tunnel-gateway SCIM"');
    expect(await unauthorized.json()).toMatchObject({ schemas: [ERROR_SCHEMA], status: "401" });
    const method = await fetch(`${server.url}/method`);
    expect(method.headers.get("allow")).toBe("GET, POST");
    expect(method.headers.get("www-authenticate")).toBeNull();
  });
});
