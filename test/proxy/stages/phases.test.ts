// The one object behind the request's phases (Passage): it has every field of every phase from its
// construction, null until the stage that adds it writes it, and the real stages, run in the pipeline's order
// on real requests, add no field it does not declare — so every request keeps one shape (one hidden class) and
// a field a phase promises is the one the constructor set.

import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GatewayRequest } from "../../../src/core/request.js";
import { STAGES } from "../../../src/proxy/pipeline.js";
import { createUpstreamProxy, type UpstreamProxy } from "../../../src/proxy/relay/upstream-proxy.js";
import { Passage } from "../../../src/proxy/stages/phases.js";
import { ACTOR } from "../../helpers/actor.js";
import { type Recorded, testContext } from "../../helpers/context.js";
import { type StageServer, serveStages } from "../../helpers/stages.js";
import { openStore, type TestStore } from "../../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../../helpers/upstream.js";
import { waitUntil } from "../../helpers/wait.js";

/** What the request arrives with, then what each stage adds, in the stages' order. */
const ARRIVED = ["req", "res", "request", "requestId", "method", "path", "secure"];
const ADDED = ["credential", "endpoint", "body", "facts", "check", "admission", "sharing", "forwarded"];

function passage(): Passage {
  const request = new GatewayRequest("r1", "POST", "/v1/chat/completions", 0);
  return new Passage(
    {} as IncomingMessage,
    {} as ServerResponse,
    request,
    "r1",
    "POST",
    "/v1/chat/completions",
    true,
  );
}

describe("Passage", () => {
  it("has every field of every phase from its construction, null until a stage writes it", () => {
    const created = passage();
    expect(Object.keys(created).sort()).toEqual([...ARRIVED, ...ADDED].sort());
    for (const field of ADDED) expect(created[field as keyof Passage], field).toBeNull();
    expect(created).toMatchObject({
      requestId: "r1",
      method: "POST",
      path: "/v1/chat/completions",
      secure: true,
    });
  });
});

describe("the stages on a Passage", () => {
  let store: TestStore;
  let upstream: StubUpstream;
  let proxy: UpstreamProxy;
  let server: StageServer;
  let recorded: Recorded;

  beforeEach(async () => {
    store = await openStore();
    upstream = await startStubUpstream();
    recorded = testContext(store, { upstream: { url: upstream.url } });
    const { ctx } = recorded;
    proxy = createUpstreamProxy(ctx.config.upstream);
    const built = { ...ctx, failures: { redisAnswered: () => {} }, proxy: proxy.proxy };
    // The pipeline's own list, in its order; the exchange answers the client.
    server = await serveStages(
      STAGES.map((stage) => stage.create(built)),
      () => {},
    );
    await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
  });
  afterEach(async () => {
    await server.close();
    proxy.close();
    await upstream.close();
    store.close();
  });

  it("fill in every field of the passage for a forwarded request, adding none it does not declare", async () => {
    const key = await store.keyService.create({ accountId: "acme", name: "k" }, ACTOR);
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.value}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "demo-small",
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 3,
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await waitUntil(() => recorded.finished.length === 1, "the exchange to end");
    const [ran] = server.ran;
    expect(ran?.error).toBeNull();
    const done = ran?.passage as Passage;
    expect(Object.keys(done)).toEqual(Object.keys(passage()));
    // Every phase's field written, but the key's fair-sharing settings, which no gate or priority asked for.
    for (const field of ADDED.filter((name) => name !== "sharing")) {
      expect(done[field as keyof Passage], field).not.toBeNull();
    }
    expect(done.sharing).toBeNull();
    expect(done.admission?.request).toBe(done.request);
  });

  it("leave the fields of the phases a refused request never reached null, adding none", async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer sk-tunnel-${"0".repeat(64)}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    const done = server.ran[0]?.passage as Passage;
    expect(Object.keys(done)).toEqual(Object.keys(passage()));
    for (const field of ADDED) expect(done[field as keyof Passage], field).toBeNull();
  });
});
