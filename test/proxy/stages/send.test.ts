// The send stage on real HTTP, behind the real first stages on the suite's Redis, in front of a stub model
// server: what the model server receives (the body with the cap its worst case assumed, a stream asked for
// its usage, the key's priority; the gateway's key and never the caller's), and what the client gets back
// through the exchange the stage starts (its key's rate-limit headers, a model list filtered to its key's
// models, a stream without the usage chunk it did not ask for).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config/schema.js";
import { createUpstreamProxy, type UpstreamProxy } from "../../../src/proxy/relay/upstream-proxy.js";
import { SharingCache } from "../../../src/proxy/sharing/sharing-cache.js";
import { admit } from "../../../src/proxy/stages/admit.js";
import { authenticate } from "../../../src/proxy/stages/authenticate.js";
import { classify } from "../../../src/proxy/stages/classify.js";
import { inspect } from "../../../src/proxy/stages/inspect.js";
import type { Sent } from "../../../src/proxy/stages/phases.js";
import { send } from "../../../src/proxy/stages/send.js";
import { SharingService } from "../../../src/services/sharing.js";
import { ACTOR } from "../../helpers/actor.js";
import { type Recorded, testContext } from "../../helpers/context.js";
import { json } from "../../helpers/http.js";
import { type StageServer, serveStages } from "../../helpers/stages.js";
import { openStore, type TestStore } from "../../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../../helpers/upstream.js";
import { waitUntil } from "../../helpers/wait.js";

const PRICING = { default: { input: 1000, output: 2000, maxOutputTokens: 100 } };
const UPSTREAM_KEY = "upstream-secret";

let store: TestStore;
let upstream: StubUpstream;
let proxy: UpstreamProxy | undefined;
let server: StageServer | undefined;
let recorded: Recorded;

beforeEach(async () => {
  store = await openStore();
  upstream = await startStubUpstream();
  await store.accountService.create({ id: "acme", balance: "100" }, ACTOR);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  proxy?.close();
  proxy = undefined;
  await upstream.close();
  store.close();
});

/** The path up to send, for a gateway configured with `upstreamSettings`. */
async function serve(upstreamSettings: Partial<ConfigInput["upstream"]> = {}): Promise<StageServer> {
  recorded = testContext(store, {
    pricing: PRICING,
    upstream: { url: upstream.url, apiKey: UPSTREAM_KEY, ...upstreamSettings },
  });
  const { ctx } = recorded;
  proxy = createUpstreamProxy(ctx.config.upstream);
  const sharing = new SharingCache({
    store: store.stores.sharing,
    maxWaitMs: 30_000,
    now: store.clock.now,
    onError: (error) => {
      throw error;
    },
  });
  server = await serveStages(
    [
      authenticate.create(ctx),
      classify.create(ctx),
      inspect.create(ctx),
      admit.create({ billing: ctx.billing, sharing, failures: { redisAnswered: () => {} } }),
      send.create({ config: ctx.config, proxy: proxy.proxy, exchange: ctx.exchange }),
    ],
    // The exchange answers the client.
    () => {},
  );
  return server;
}

async function key(fields: Record<string, unknown> = {}): Promise<{ value: string; id: string }> {
  const created = await store.keyService.create({ accountId: "acme", name: "k", ...fields }, ACTOR);
  return { value: created.value, id: created.record.id };
}

function chat(keyValue: string, body: Record<string, unknown>): RequestInit {
  return {
    method: "POST",
    headers: { authorization: `Bearer ${keyValue}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "demo-small", messages: [{ role: "user", content: "hi there" }], ...body }),
  };
}

function sent(at: StageServer, index = 0): Sent {
  const ran = at.ran[index];
  expect(ran?.error).toBeNull();
  return ran?.passage as unknown as Sent;
}

/** Waits for the exchanges to end (settled and reported through the test context). */
async function ended(count: number): Promise<void> {
  await waitUntil(() => recorded.finished.length === count, `${count} exchange(s) to end`);
}

/** The data events of a server-sent event stream, parsed, without the closing [DONE]. */
function events(text: string): any[] {
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: ") && event !== "data: [DONE]")
    .map((event) => JSON.parse(event.slice("data: ".length)));
}

describe("the send stage", () => {
  it("forwards the body with the cap its worst case assumed, with the gateway's key and never the caller's", async () => {
    const at = await serve();
    const { value } = await key();
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, {}));
    expect(res.status).toBe(200);
    expect((await json(res)).choices[0].message.content).toBeTypeOf("string");
    await ended(1);

    const passage = sent(at);
    const [received] = upstream.requests;
    expect(upstream.requests).toHaveLength(1);
    expect(received?.body.equals(passage.forwarded)).toBe(true);
    expect(JSON.parse(received?.body.toString("utf8") as string)).toMatchObject({
      model: "demo-small",
      max_tokens: passage.admission.cap,
    });
    expect(passage.admission.cap).toBe(100);
    expect(passage.body.toString("utf8")).not.toContain("max_tokens");
    expect(received?.headers).toMatchObject({
      authorization: `Bearer ${UPSTREAM_KEY}`,
      "x-request-id": "req-1",
      "x-forwarded-proto": "http",
      "content-length": String(passage.forwarded.length),
    });
    expect(JSON.stringify(received?.headers)).not.toContain(value);
    // The exchange metered the answer and settled the request.
    expect(recorded.settled).toHaveLength(1);
    expect(recorded.settled[0]?.promptTokens).toBeGreaterThan(0);
    expect(recorded.settled[0]?.cost).toBeGreaterThan(0);
  });

  it("asks a stream for its usage and keeps the usage chunk it asked for from the client", async () => {
    const at = await serve();
    const { value } = await key();
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { stream: true, max_tokens: 5 }));
    expect(res.status).toBe(200);
    const chunks = events(await res.text());
    await ended(1);

    const forwarded = JSON.parse(upstream.requests[0]?.body.toString("utf8") as string);
    expect(forwarded.stream_options).toEqual({ include_usage: true });
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.usage !== undefined)).toEqual([]);
    // Metered from the chunk the client never saw.
    expect(recorded.settled[0]).toMatchObject({ completionTokens: 5 });
    expect(recorded.settled[0]?.promptTokens).toBeGreaterThan(0);
  });

  it("forwards a stream that asks for its usage itself as it came, and the client gets the usage", async () => {
    const at = await serve();
    const { value } = await key();
    const body = { stream: true, max_tokens: 5, stream_options: { include_usage: true } };
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, body));
    const chunks = events(await res.text());
    await ended(1);
    expect(upstream.requests[0]?.body.equals(sent(at).body)).toBe(true);
    expect(chunks.at(-1)?.usage).toMatchObject({ completion_tokens: 5 });
  });

  it("leaves a stream's body alone where upstream.injectStreamUsage is off", async () => {
    const at = await serve({ injectStreamUsage: false });
    const { value } = await key();
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { stream: true, max_tokens: 5 }));
    await res.text();
    await ended(1);
    const forwarded = JSON.parse(upstream.requests[0]?.body.toString("utf8") as string);
    expect(forwarded.stream_options).toBeUndefined();
  });

  it("gives the client its key's rate-limit headers, as OpenAI's API does", async () => {
    const at = await serve();
    const { value } = await key({ rpm: 5, tpm: 100_000 });
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }));
    expect(res.status).toBe(200);
    await res.text();
    await ended(1);
    expect(res.headers.get("x-ratelimit-limit-requests")).toBe("5");
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("4");
    expect(res.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(\.\d+)?m?s$/);
    expect(res.headers.get("x-ratelimit-limit-tokens")).toBe("100000");
    expect(Number(res.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThan(100_000);
  });

  it("gives a key without per-minute limits no rate-limit headers", async () => {
    const at = await serve();
    const { value } = await key();
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }));
    await res.text();
    await ended(1);
    expect([...res.headers.keys()].filter((name) => name.startsWith("x-ratelimit-"))).toEqual([]);
  });

  it("filters GET /v1/models to the key's model list, asking the model server for an uncompressed list", async () => {
    const at = await serve();
    const { value } = await key({ models: ["demo-large"] });
    const res = await fetch(`${at.url}/v1/models`, {
      headers: { authorization: `Bearer ${value}`, "accept-encoding": "gzip" },
    });
    expect(res.status).toBe(200);
    const list = await json(res);
    await ended(1);
    expect(list.data.map((model: { id: string }) => model.id)).toEqual(["demo-large"]);
    expect(upstream.requests[0]?.headers["accept-encoding"]).toBe("identity");
  });

  it("writes the key's priority into upstream.priorityField over the client's, negated for a higherFirst server", async () => {
    const at = await serve({ priorityField: "priority", priorityOrder: "higherFirst" });
    const { value, id } = await key();
    await new SharingService(store.stores).setKey(id, { priority: 3 }, ACTOR);
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 5, priority: 99 }));
    await res.text();
    await ended(1);
    expect(sent(at).sharing?.priority).toBe(3);
    expect(JSON.parse(upstream.requests[0]?.body.toString("utf8") as string).priority).toBe(-3);
  });
});
