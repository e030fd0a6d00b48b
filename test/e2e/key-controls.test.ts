// Key controls through real HTTP and the suite's Redis, with two gateway replicas sharing it: rate limits
// exact across both (the tests' clock moved by hand, never slept on), tokens per minute corrected at
// settlement, requests in flight against max_parallel freed by a finished or aborted stream and by the expiry
// of a crashed replica's reservation, OpenAI's rate-limit headers read by the official client, and rotation,
// disabling and enabling seen by both replicas at once.

import type { ServerResponse } from "node:http";
import OpenAI from "openai";
import { afterEach, describe, expect, inject, it } from "vitest";
import { ACTOR } from "../helpers/actor.js";
import { TestClock } from "../helpers/clock.js";
import { json, PRICING, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

const ADMIN = "admin-token-0123456789";

let replicas: TestGateway[] = [];
let upstream: StubUpstream | undefined;
let spawned: GatewayProcess | undefined;

afterEach(async () => {
  await spawned?.stop("SIGKILL");
  spawned = undefined;
  for (const replica of replicas) await replica.close();
  replicas = [];
  await upstream?.close();
  upstream = undefined;
});

/** The test's model server: the demo's answers unless a test holds some. */
async function modelServer(): Promise<StubUpstream> {
  upstream ??= await startStubUpstream();
  return upstream;
}

/** Two gateways on one Redis prefix and one clock: two replicas of one deployment. */
async function twoReplicas(clock = new TestClock()): Promise<[TestGateway, TestGateway]> {
  const server = await modelServer();
  const config = { pricing: PRICING, admin: { token: ADMIN } };
  const a = await startTestGateway({ upstreamUrl: server.url, clock, config });
  replicas.push(a);
  const b = await startTestGateway({
    upstreamUrl: server.url,
    clock,
    config: { ...config, redis: { prefix: a.config.redis.prefix } },
  });
  replicas.push(b);
  return [a, b];
}

function chat(gateway: TestGateway, key: string, init: { signal?: AbortSignal; stream?: boolean } = {}) {
  return gateway.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "demo-small",
      messages: [{ role: "user", content: "a b c d e" }],
      max_tokens: 300,
      stream: init.stream ?? false,
    }),
    signal: init.signal,
  });
}

function admin(gateway: TestGateway, path: string, body?: unknown) {
  return fetch(`${gateway.gateway.adminUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
}

const keyPath = (key: { accountId: string; id: string }) =>
  `/admin/v1/accounts/${key.accountId}/keys/${key.id}`;

async function settled(...gateways: TestGateway[]): Promise<void> {
  for (const gateway of gateways) await gateway.gateway.settled();
}

describe("requests per minute across two replicas", () => {
  it("admits exactly rpm of 50 parallel requests, refuses the rest with Retry-After, and frees as the clock moves", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ rpm: 10 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => chat(i % 2 === 0 ? a : b, key.value)),
    );
    const ok = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect((await modelServer()).requests).toHaveLength(10);
    for (const res of refused) {
      // Every refusal comes at the same instant, a tenth of a minute before the next request fits.
      expect(res.headers.get("retry-after")).toBe("6");
      expect(res.headers.get("retry-after-ms")).toBe("6000");
      expect(await json(res)).toEqual({
        error: {
          type: "rate_limit_error",
          code: "rate_limit_exceeded",
          message: "This key may make 10 requests a minute and has made them; the next one fits in 6 s.",
        },
      });
    }
    const remaining = ok.map((res) => Number(res.headers.get("x-ratelimit-remaining-requests")));
    expect(remaining.sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const res of ok) {
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("10");
      await res.text();
    }

    a.clock.advance(5999);
    expect((await chat(b, key.value)).status).toBe(429);
    a.clock.advance(1);
    expect((await chat(b, key.value)).status).toBe(200);
    expect((await chat(a, key.value)).status).toBe(429);
    a.clock.advance(60_000);
    const next = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(i % 2 ? a : b, key.value)));
    expect(next.map((res) => res.status).filter((status) => status === 200)).toHaveLength(10);
    await settled(a, b);
  });
});

describe("tokens per minute", () => {
  it("counts the worst case at admission and frees what was not used at settlement", async () => {
    const holding = holdStreams(await modelServer());
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ tpm: 1000 });
    const first = await chat(a, key.value);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("1000");
    expect(first.headers.get("x-ratelimit-reset-tokens")).toMatch(/^\d+(\.\d+)?s$/);
    const worst = 1000 - Number(first.headers.get("x-ratelimit-remaining-tokens"));
    const used = (await json(first)).usage.total_tokens;
    expect(used).toBe(17);
    // 5 prompt words (as estimated, with the rest of the body) + max_tokens 300.
    await settled(a);

    // Settled, the first request holds only the 17 tokens it used, so two more worst cases fit where one
    // would without the correction (the three do not fit together). The two are held streams, unsettled when
    // a fourth asks.
    const options = { prompt: "a b c d e", maxTokens: 300 };
    const second = await stream(b, key.value, "second", options);
    const streamed = 1000 - used - Number(second.headers.get("x-ratelimit-remaining-tokens"));
    // A stream's worst case is the same request's, give or take the estimate of its larger body.
    expect(Math.abs(streamed - worst)).toBeLessThan(100);
    const third = await stream(a, key.value, "third", options);
    expect(third.status).toBe(200);
    expect(Number(third.headers.get("x-ratelimit-remaining-tokens"))).toBe(1000 - used - 2 * streamed);
    expect(worst + 2 * streamed).toBeGreaterThan(1000);
    const fourth = await chat(b, key.value);
    expect(fourth.status).toBe(429);
    expect((await json(fourth)).error.message).toBe(
      `This key may use 1000 tokens a minute; this request could use up to ${worst}, which fits in ` +
        `${Math.ceil(((used + 2 * streamed + worst - 1000) * 60) / 100) / 10} s.`,
    );
    await waitUntil(() => holding.held.size === 2, "two streams held upstream");
    for (const name of ["second", "third"]) holding.release(name);
    await Promise.all([second.text(), third.text()]);
    await settled(a, b);
  });
});

/**
 * Streams the model server holds, by the name in their X-Test-Hold header, until the test releases them (or
 * their client aborts); other requests are answered at once.
 */
function holdStreams(server: StubUpstream): {
  held: Map<string, ServerResponse>;
  release(name: string): void;
} {
  const held = new Map<string, ServerResponse>();
  server.handle((req, res) => {
    const name = req.headers["x-test-hold"];
    if (typeof name !== "string") return false;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "a" } }] })}\n\n`);
    held.set(name, res);
    return true;
  });
  return {
    held,
    release(name) {
      const res = held.get(name) as ServerResponse;
      const usage = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
      res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
    },
  };
}

/** A streamed chat the model server holds (as `hold`) until the test releases it. */
function stream(
  gateway: TestGateway,
  key: string,
  hold: string,
  options: { signal?: AbortSignal; prompt?: string; maxTokens?: number } = {},
) {
  return gateway.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", "x-test-hold": hold },
    body: JSON.stringify({
      model: "demo-small",
      messages: [{ role: "user", content: options.prompt ?? "hello" }],
      max_tokens: options.maxTokens ?? 10,
      stream: true,
      stream_options: { include_usage: true },
    }),
    signal: options.signal,
  });
}

describe("max_parallel across two replicas", () => {
  it("admits 3 slow streams, refuses a 4th, and frees a slot the moment one finishes or is aborted", async () => {
    const holding = holdStreams(await modelServer());
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ maxParallel: 3 });
    const aborts = [new AbortController(), new AbortController(), new AbortController()];
    const streams = await Promise.all([
      stream(a, key.value, "s0", { signal: aborts[0]?.signal }),
      stream(a, key.value, "s1", { signal: aborts[1]?.signal }),
      stream(b, key.value, "s2", { signal: aborts[2]?.signal }),
    ]);
    expect(streams.map((res) => res.status)).toEqual([200, 200, 200]);
    await waitUntil(() => holding.held.size === 3, "three streams held upstream");
    const refused = await stream(b, key.value, "refused");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await json(refused)).error).toEqual({
      type: "rate_limit_error",
      code: "concurrency_limit_exceeded",
      message: "This key may have 3 requests in flight at once and has 3; retry when one has finished.",
    });
    expect(await a.store.billing.inFlight("acme")).toEqual({ [key.id]: 3 });

    // One finishes: its slot is free once its settlement is made, which follows its end at once.
    holding.release("s0");
    await streams[0]?.text();
    await waitUntil(async () => (await a.store.billing.inFlight("acme"))[key.id] === 2, "the finish settled");
    const fourth = await stream(b, key.value, "s3");
    expect(fourth.status).toBe(200);
    await waitUntil(() => holding.held.size === 4, "the fourth stream held upstream");
    expect((await stream(a, key.value, "refused")).status).toBe(429);

    // One is aborted by its client: the same.
    aborts[2]?.abort();
    await waitUntil(async () => (await b.store.billing.inFlight("acme"))[key.id] === 2, "the abort settled");
    const fifth = await stream(a, key.value, "s4");
    expect(fifth.status).toBe(200);
    await waitUntil(() => holding.held.size === 5, "the fifth stream held upstream");

    for (const name of ["s1", "s3", "s4"]) holding.release(name);
    await Promise.all([streams[1]?.text(), fourth.text(), fifth.text()]);
    await settled(a, b);
    expect(await a.store.billing.inFlight("acme")).toEqual({});
    expect(await a.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("does not stay taken by a crashed replica: the slot comes back when its reservation expires", async () => {
    const server = await modelServer();
    const holding = holdStreams(server);
    // The spawned replica runs on the wall clock; this one starts there and is moved by hand.
    const clock = new TestClock(Date.now());
    const ttl = { billing: { reservationTtlSeconds: 60 } };
    const t = await startTestGateway({
      upstreamUrl: server.url,
      clock,
      config: { pricing: PRICING, ...ttl },
    });
    replicas.push(t);
    spawned = await spawnGateway({
      pricing: PRICING,
      ...ttl,
      upstream: { url: server.url },
      redis: { url: inject("redisUrl"), prefix: t.config.redis.prefix },
    });
    const key = await t.newKey({ maxParallel: 1 });
    const base = spawned.url;
    const held = fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.value}`,
        "content-type": "application/json",
        "x-test-hold": "1",
      },
      body: JSON.stringify({
        model: "demo-small",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
    expect((await held).status).toBe(200);
    await waitUntil(() => holding.held.size === 1, "the stream held upstream");
    expect((await chat(t, key.value)).status).toBe(429);

    spawned.child.kill("SIGKILL");
    await spawned.exited;
    expect((await chat(t, key.value)).status).toBe(429);
    clock.advance(60_000 + 5_000);
    const after = await chat(t, key.value);
    expect(after.status).toBe(200);
    await after.text();
    await settled(t);
    expect(await t.store.billing.inFlight("acme")).toEqual({});
  });
});

describe("the official openai client", () => {
  it("reads the rate-limit headers and gets a RateLimitError carrying Retry-After", async () => {
    const [a] = await twoReplicas();
    const key = await a.newKey({ rpm: 2, tpm: 100_000 });
    const openai = new OpenAI({ apiKey: key.value, baseURL: `${a.url}/v1`, maxRetries: 0 });
    const request = {
      model: "demo-small",
      messages: [{ role: "user" as const, content: "one two three" }],
      max_tokens: 8,
    };
    const { data, response } = await openai.chat.completions.create(request).withResponse();
    expect(data.usage?.total_tokens).toBe(11);
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect(response.headers.get("x-ratelimit-reset-requests")).toBe("30s");
    expect(response.headers.get("x-ratelimit-limit-tokens")).toBe("100000");
    expect(Number(response.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThan(100_000);
    expect(response.headers.get("x-ratelimit-reset-tokens")).toMatch(/^\d+ms$|^\d+(\.\d+)?s$/);
    await openai.chat.completions.create(request);
    const error = await openai.chat.completions.create(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded", type: "rate_limit_error" });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("30");
    expect((error as Error).message).toContain("the next one fits in 30 s");
    await settled(a);
  });
});

describe("rotation on two replicas at once", () => {
  it("gives a new value at once, keeps the old one through the grace period, then refuses it as rotated", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ rpm: 100 });
    // Both replicas have seen (and cached) the old value.
    for (const replica of [a, b]) expect((await chat(replica, key.value)).status).toBe(200);

    const rotated = await json(await admin(a, `${keyPath(key)}/rotate`, { grace: "1h" }));
    expect(rotated).toMatchObject({ id: key.id, state: "rotating", limits: { rpm: 100 } });
    expect(rotated.key).toMatch(/^sk-tunnel-[0-9a-f]{64}$/);
    expect(rotated.grace_until).toBe(new Date(a.clock.now() + 3_600_000).toISOString());
    for (const replica of [a, b]) {
      expect((await chat(replica, rotated.key)).status).toBe(200);
      expect((await chat(replica, key.value)).status).toBe(200);
      const view = await json(await replica.fetch("/v1/key", { key: key.value }));
      expect(view).toMatchObject({ id: key.id, state: "rotating", grace_until: rotated.grace_until });
    }

    a.clock.advance(3_600_000);
    for (const replica of [a, b]) {
      const res = await chat(replica, key.value);
      expect(res.status).toBe(401);
      expect((await json(res)).error).toMatchObject({ code: "key_rotated", type: "authentication_error" });
      expect((await replica.fetch("/v1/key", { key: key.value })).status).toBe(401);
      expect(await json(await replica.fetch("/v1/key", { key: rotated.key }))).toMatchObject({
        state: "active",
        grace_until: null,
      });
    }

    // Rotating twice during a grace period ends the first grace at once.
    const second = await json(await admin(b, `${keyPath(key)}/rotate`, { grace: "7d" }));
    const third = await json(await admin(a, `${keyPath(key)}/rotate`));
    expect(third.state).toBe("active");
    for (const replica of [a, b]) {
      expect((await chat(replica, second.key)).status).toBe(401);
      expect((await chat(replica, third.key)).status).toBe(200);
    }
    await settled(a, b);
    const audit = await a.store.accountService.audit("acme", 10);
    expect(audit.filter((entry) => entry.action === "key.rotate")).toHaveLength(3);
  });
});

describe("disable and enable on two replicas at once", () => {
  it("refuses a disabled key with 403 key_disabled everywhere, still answers /v1/key, and restores it", async () => {
    const [a, b] = await twoReplicas();
    const key = await a.newKey({ budget: "5" });
    const disabled = await json(await admin(b, `${keyPath(key)}/disable`));
    expect(disabled).toMatchObject({ state: "disabled", disabled_at: new Date(a.clock.now()).toISOString() });
    for (const replica of [a, b]) {
      const res = await chat(replica, key.value);
      expect(res.status).toBe(403);
      expect((await json(res)).error).toMatchObject({ code: "key_disabled", type: "permission_error" });
      const view = await replica.fetch("/v1/key", { key: key.value });
      expect(view.status).toBe(200);
      expect(await json(view)).toMatchObject({ state: "disabled", budgets: [{ amount: 5 }] });
      expect((await replica.fetch("/v1/balance", { key: key.value })).status).toBe(200);
    }
    expect((await modelServer()).requests).toHaveLength(0);
    expect(await json(await admin(a, `${keyPath(key)}/enable`))).toMatchObject({
      state: "active",
      disabled_at: null,
    });
    for (const replica of [a, b]) expect((await chat(replica, key.value)).status).toBe(200);
    await settled(a, b);
    const actions = (await a.store.accountService.audit("acme", 10)).map((entry) => entry.action);
    expect(actions.slice(0, 2)).toEqual(["key.enable", "key.disable"]);
    await a.store.keyService.revoke(key.id, ACTOR);
    expect((await admin(a, `${keyPath(key)}/enable`)).status).toBe(400);
  });
});
