// How a request answered with a 5xx of the gateway's own is logged: one warning per Redis outage however
// many requests it refuses, and a line when requests reach Redis again; nothing for a script error (logged
// where it ran); an error line with the stack for a bug — on a clock the test moves.

import { describe, expect, it } from "vitest";
import { asGatewayError, GatewayError } from "../../src/core/errors.js";
import { createLogger } from "../../src/observability/logger.js";
import { OUTAGE_QUIET_MS, RequestFailures } from "../../src/observability/request-failures.js";

function failures() {
  const lines: Record<string, any>[] = [];
  let now = 0;
  const logged = new RequestFailures(
    createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) }),
    () => now,
  );
  return { logged, lines, advance: (ms: number) => (now += ms) };
}

const connectionLost = () => asGatewayError(new Error("Connection is closed."));
const clusterDown = () =>
  asGatewayError(Object.assign(new Error("CLUSTERDOWN The cluster is down"), { name: "ReplyError" }));
const scriptFailed = () =>
  asGatewayError(Object.assign(new Error("ERR user_script:1: oops"), { name: "ReplyError" }));

describe("RequestFailures", () => {
  it("writes one warning for a Redis outage however many requests it refuses, and one line when it is over", () => {
    const f = failures();
    for (let i = 0; i < 50; i++) {
      f.logged.failed(i % 2 ? connectionLost() : clusterDown(), { request_id: `r${i}` }, "request failed");
      f.advance(10);
    }
    expect(f.lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "Redis is unavailable: requests are answered 503 until it answers again",
        request_id: "r0",
        err: "CLUSTERDOWN The cluster is down",
      }),
    ]);
    expect(f.lines[0]).not.toHaveProperty("err.stack");
    f.advance(OUTAGE_QUIET_MS);
    f.logged.redisAnswered();
    f.logged.redisAnswered();
    expect(f.lines[1]).toMatchObject({ level: 30, msg: "Redis answers requests again", refused: 50 });
    expect(f.lines).toHaveLength(2);
    // The next outage is a new one.
    f.logged.failed(connectionLost(), { request_id: "later" }, "request failed");
    expect(f.lines[2]).toMatchObject({ level: 40, request_id: "later" });
  });

  it("keeps refusals and answers within a second of each other one outage (a Cluster with some slots down)", () => {
    const f = failures();
    for (let i = 0; i < 20; i++) {
      f.logged.failed(clusterDown(), {}, "request failed");
      f.advance(100);
      f.logged.redisAnswered();
    }
    expect(f.lines.map((line) => line.level)).toEqual([40]);
  });

  it("logs nothing for a script error, and an error line with its stack for each failure of ours", () => {
    const f = failures();
    f.logged.failed(scriptFailed(), { request_id: "a" }, "request failed");
    f.logged.failed(new GatewayError("budget_exceeded"), { request_id: "b" }, "request failed");
    expect(f.lines).toEqual([]);
    f.logged.failed(asGatewayError(new TypeError("a bug")), { request_id: "c" }, "request failed");
    f.logged.failed(asGatewayError(new TypeError("a bug")), { request_id: "d" }, "request failed");
    expect(f.lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "request failed",
        request_id: "c",
        err: expect.objectContaining({ stack: expect.any(String) }),
      }),
      expect.objectContaining({ level: 50, msg: "request failed", request_id: "d" }),
    ]);
  });
});
