// What callers see with their own key: GET /v1/requests/{request_id} and GET /v1/usage, through the official
// openai client's calls, against the request log, the key's spent amount and its usage counters.

import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { json, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

let t: TestGateway;
let upstream: StubUpstream;

afterEach(async () => {
  await t?.close();
  await upstream?.close();
});

const PRICING = {
  default: { input: 1000, output: 2000 },
  models: { "demo-large": { input: 5000, output: 7000 } },
};

async function start() {
  upstream = await startStubUpstream();
  t = await startTestGateway({ upstreamUrl: upstream.url, config: { pricing: PRICING } });
}

async function spentOf(key: string): Promise<number> {
  return (await json(await t.fetch("/v1/key", { key }))).budgets[0].spent;
}

/** The key's request as /v1/requests/{id} answers it, waiting at most a second for it to be settled. */
async function requestOf(key: string, id: string): Promise<any> {
  let body: any;
  await waitUntil(
    async () => {
      const res = await t.fetch(`/v1/requests/${encodeURIComponent(id)}`, { key });
      body = await json(res);
      return res.status === 200;
    },
    `request ${id} in the key's recent requests`,
    1000,
  );
  return body;
}

describe("GET /v1/requests/{request_id}", () => {
  it("returns for each of the openai client's calls exactly the cost in the request log and in the change of spent", async () => {
    await start();
    const key = await t.newKey({ budget: "100" });
    const openai = new OpenAI({ apiKey: key.value, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const calls: (() => Promise<string>)[] = [
      async () => {
        const completion = await openai.chat.completions.create({
          model: "demo-large",
          messages: [{ role: "user", content: "one two three four" }],
          max_tokens: 6,
        });
        return completion._request_id as string;
      },
      async () => {
        const { data: stream, response } = await openai.chat.completions
          .create({
            model: "demo-small",
            messages: [{ role: "user", content: "a b" }],
            max_tokens: 5,
            stream: true,
          })
          .withResponse();
        for await (const _chunk of stream) {
          // read to the end
        }
        return response.headers.get("x-request-id") as string;
      },
      async () => {
        const completion = await openai.completions.create({
          model: "demo-small",
          prompt: "x y z",
          max_tokens: 3,
        });
        return completion._request_id as string;
      },
    ];
    let total = 0;
    for (const call of calls) {
      const before = await spentOf(key.value);
      const id = await call();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      // Answered at once: from the settlement this replica still holds, or from Redis once it is written.
      const answered = await json(await t.fetch(`/v1/requests/${id}`, { key: key.value }));
      expect(answered).toMatchObject({ id, settled: expect.any(Boolean) });
      await t.gateway.settled();
      const request = await requestOf(key.value, id);
      expect({ ...answered, settled: true }).toEqual(request);
      const after = await spentOf(key.value);
      const line = t.logs.find((entry) => entry.request_id === id && entry.msg === "request");
      expect(request.cost).toBe(line?.cost_rub);
      expect(request.cost).toBeCloseTo(after - before, 9);
      expect(Math.round((after - before) * 1e6)).toBe(Math.round(request.cost * 1e6));
      expect(request).toEqual({
        id,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        model: line?.model,
        path: line?.path,
        status: 200,
        prompt_tokens: line?.prompt_tokens,
        cached_tokens: line?.cached_tokens,
        completion_tokens: line?.completion_tokens,
        cost: line?.cost_rub,
        currency: "RUB",
        usage_estimated: false,
        latency_ms: expect.any(Number),
        // Without upstream.maxInFlight nothing waits for the model server.
        queue_ms: 0,
        settled: true,
      });
      total += request.cost;
    }
    // 4 × 5000 + 6 × 7000, 2 × 1000 + 5 × 2000, 3 × 1000 + 3 × 2000 µ₽.
    expect(Math.round(total * 1e6)).toBe(62_000 + 12_000 + 9_000);
  });

  it("answers 404 request_not_found for an unknown id and for another key's request, even of the same account", async () => {
    await start();
    const mine = await t.newKey();
    const theirs = await t.newKey();
    const res = await t.fetch("/v1/chat/completions", {
      key: theirs.value,
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "their-request-1" },
      body: JSON.stringify({
        model: "demo-small",
        max_tokens: 2,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect((await requestOf(theirs.value, "their-request-1")).id).toBe("their-request-1");

    for (const id of ["their-request-1", "never-seen", "a%2Fb", "%E0%A4%A"]) {
      const refused = await t.fetch(`/v1/requests/${id}`, { key: mine.value });
      expect(refused.status, id).toBe(404);
      expect((await json(refused)).error).toMatchObject({
        code: "request_not_found",
        type: "invalid_request_error",
      });
    }
    expect((await t.fetch("/v1/requests/their-request-1")).status).toBe(401);
    expect(
      (await t.fetch("/v1/requests/their-request-1", { key: theirs.value, method: "POST" })).status,
    ).toBe(405);
    // The path is the gateway's own: nothing under it reaches the model server.
    expect(upstream.requests.map((r) => r.url)).toEqual(["/v1/chat/completions"]);
  });

  it("finds the latest of two requests that reused one X-Request-Id, among the key's others", async () => {
    await start();
    const key = await t.newKey();
    for (const [id, tokens] of [
      ["reused", 2],
      ["other", 3],
      ["reused", 4],
    ] as const) {
      const res = await t.fetch("/v1/chat/completions", {
        key: key.value,
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": id },
        body: JSON.stringify({
          model: "demo-small",
          max_tokens: tokens,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
      await res.arrayBuffer();
      await t.gateway.settled();
    }
    expect((await requestOf(key.value, "reused")).completion_tokens).toBe(4);
    expect((await requestOf(key.value, "other")).completion_tokens).toBe(3);
  });
});

describe("GET /v1/usage", () => {
  it("sums, per day in the billing time zone, to the key's spent amount", async () => {
    await start();
    t.clock.set("2026-11-20T23:30:00.000Z");
    const key = await t.newKey({ budget: "100" });
    const openai = new OpenAI({ apiKey: key.value, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const ask = async (words: string) => {
      await openai.chat.completions.create({
        model: "demo-small",
        messages: [{ role: "user", content: words }],
        max_tokens: 4,
      });
      await t.gateway.settled();
    };
    await ask("one");
    await ask("one two");
    t.clock.set("2026-11-21T08:00:00.000Z");
    await ask("one two three");
    const res = await t.fetch("/v1/usage?from=2026-11-19&to=2026-11-21", { key: key.value });
    expect(res.status).toBe(200);
    const usage = await json(res);
    expect(usage).toEqual({
      key_id: key.id,
      from: "2026-11-19",
      to: "2026-11-21",
      timezone: "UTC",
      currency: "RUB",
      days: [
        {
          date: "2026-11-19",
          requests: 0,
          prompt_tokens: 0,
          cached_tokens: 0,
          completion_tokens: 0,
          cost: 0,
          errors: 0,
        },
        {
          date: "2026-11-20",
          requests: 2,
          prompt_tokens: 3,
          cached_tokens: 0,
          completion_tokens: 8,
          cost: 0.019,
          errors: 0,
        },
        {
          date: "2026-11-21",
          requests: 1,
          prompt_tokens: 3,
          cached_tokens: 0,
          completion_tokens: 4,
          cost: 0.011,
          errors: 0,
        },
      ],
      total: {
        requests: 3,
        prompt_tokens: 6,
        cached_tokens: 0,
        completion_tokens: 12,
        cost: 0.03,
        errors: 0,
      },
    });
    expect(usage.total.cost).toBe(await spentOf(key.value));
  });

  it("refuses a bad date or range with 400 naming the parameter, and at most 92 days", async () => {
    await start();
    const key = await t.newKey();
    const refusal = async (query: string) => {
      const res = await t.fetch(`/v1/usage${query}`, { key: key.value });
      expect(res.status, query).toBe(400);
      const { error } = await json(res);
      expect(error.code).toBe("invalid_request");
      return error.message as string;
    };
    expect(await refusal("?from=2026-13-01")).toBe('from must be a date as YYYY-MM-DD; got "2026-13-01"');
    expect(await refusal("?from=2026-11-01&to=yesterday")).toBe(
      'to must be a date as YYYY-MM-DD; got "yesterday"',
    );
    expect(await refusal("?from=2026-11-02&to=2026-11-01")).toBe(
      "from (2026-11-02) must not be after to (2026-11-01)",
    );
    expect(await refusal("?from=2026-01-01&to=2026-04-03")).toBe(
      "from and to may span at most 92 days; got 2026-01-01 to 2026-04-03",
    );
    expect(await refusal("?day=2026-11-01")).toBe("Unknown parameter day: /v1/usage takes from and to.");
    const ninetyTwo = await t.fetch("/v1/usage?from=2026-01-01&to=2026-04-02", { key: key.value });
    expect((await json(ninetyTwo)).days).toHaveLength(92);
    // The last 30 days up to today when neither is given.
    const recent = await json(await t.fetch("/v1/usage", { key: key.value }));
    expect([recent.from, recent.to, recent.days.length]).toEqual(["2026-10-23", "2026-11-21", 30]);
    expect((await t.fetch("/v1/usage")).status).toBe(401);
  });
});
