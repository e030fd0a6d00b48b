// The "no overspend under concurrency" scenario: 200 requests in parallel against a key whose budget (or
// whose account's balance) covers only some of them, through one or more gateways sharing one Redis.
// Used against a single Redis and against Redis Cluster.

import { expect } from "vitest";
import { PRICING, type TestGateway } from "./gateway.js";

export const PARALLEL = 200;

const MAX_TOKENS = 10;

/** Streamed every other time: both paths must hold the line. */
function body(i: number): string {
  return JSON.stringify({
    model: "demo-small",
    max_tokens: MAX_TOKENS,
    stream: i % 2 === 0,
    messages: [{ role: "user", content: "hi there you" }],
  });
}

function send(base: string, key: string, i: number): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body(i),
  });
}

// PRICING's prices are rubles per million tokens, so each is also µ₽ per token.
const MICROS_PER_PROMPT_TOKEN = PRICING.default.input;
const MICROS_PER_COMPLETION_TOKEN = PRICING.default.output;

/**
 * What each request costs, in µ₽: the demo upstream reports one prompt token per word of "hi there you" (3)
 * and min(max_tokens, 12) = 10 completion tokens, streamed or not (the gateway asks a stream for its usage).
 */
const COST = 3 * MICROS_PER_PROMPT_TOKEN + MAX_TOKENS * MICROS_PER_COMPLETION_TOKEN;

/**
 * The most a request reserves, in µ₽: the worst case counts the whole request body as prompt tokens (one
 * per byte, estimate.reserveBytesPerToken's default) plus max_tokens completion tokens. The streamed body
 * ("stream":true) is one byte shorter than the other, so the largest reservation is the other's.
 */
const WORST_CASE = Math.max(
  ...[0, 1].map(
    (i) => Buffer.byteLength(body(i)) * MICROS_PER_PROMPT_TOKEN + MAX_TOKENS * MICROS_PER_COMPLETION_TOKEN,
  ),
);

/**
 * A request is refused only when what is spent and reserved, plus its own worst case, exceeds the limit.
 * Every accepted request holds at most WORST_CASE of the limit (its reservation, or its cost once settled,
 * which is less), so a refusal means accepted × WORST_CASE + WORST_CASE > limit: at least
 * floor(limit / WORST_CASE) requests must have been accepted before the first one was refused.
 */
function fewestAccepted(limit: number): number {
  return Math.floor(limit / WORST_CASE);
}

/** Fires the requests; returns for each 200, or status*1000 + 1 (budget_exceeded) / 2 (insufficient_balance) / 9. */
export async function fire(bases: string[], key: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const res = await send(bases[i % bases.length] as string, key, i);
      const text = await res.text();
      if (res.status !== 200) {
        const code = JSON.parse(text).error.code;
        return res.status * 1000 + (code === "budget_exceeded" ? 1 : code === "insufficient_balance" ? 2 : 9);
      }
      return 200;
    }),
  );
}

/** The request log lines of every gateway, each checked to be a completed request billed exactly COST. */
function billedLines(logs: Record<string, any>[]): Record<string, any>[] {
  const lines = logs.filter((line) => line.msg === "request");
  for (const line of lines) {
    expect(line).toMatchObject({
      status: 200,
      outcome: "completed",
      prompt_tokens: 3,
      completion_tokens: MAX_TOKENS,
      usage_estimated: false,
    });
    expect(Math.round(line.cost_rub * 1e6)).toBe(COST);
  }
  return lines;
}

/**
 * Budget: 1 ₽ for requests that cost COST (0.023 ₽) and reserve up to WORST_CASE (about 0.13 ₽).
 * `settleAll` must return once every gateway has written every settlement; `logs` then holds every
 * gateway's log lines.
 */
export async function budgetHolds(
  t: TestGateway,
  bases: string[],
  settleAll: () => Promise<void>,
  logs: () => Record<string, any>[],
): Promise<void> {
  const budget = 1_000_000;
  const key = await t.newKey({ budget: "1", period: "day" });
  const statuses = await fire(bases, key.value);
  await settleAll();
  const accepted = statuses.filter((s) => s === 200).length;
  expect(accepted).toBeGreaterThanOrEqual(fewestAccepted(budget));
  expect(accepted).toBeLessThanOrEqual(Math.floor(budget / COST));
  expect(statuses.filter((s) => s !== 200).every((s) => s === 403_001)).toBe(true);
  expect(billedLines(logs())).toHaveLength(accepted);
  const record = await t.store.keys.get({ accountId: "acme", keyId: key.id });
  expect(record?.spent).toBe(accepted * COST);
  expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
}

/** Balance: 1.5 ₽ on an account whose key has no budget. */
export async function balanceHolds(
  t: TestGateway,
  bases: string[],
  settleAll: () => Promise<void>,
  logs: () => Record<string, any>[],
): Promise<void> {
  const balance = 1_500_000;
  const key = await t.newKey({ balance: "1.5" });
  const statuses = await fire(bases, key.value);
  await settleAll();
  const accepted = statuses.filter((s) => s === 200).length;
  expect(accepted).toBeGreaterThanOrEqual(fewestAccepted(balance));
  expect(accepted).toBeLessThanOrEqual(Math.floor(balance / COST));
  expect(statuses.filter((s) => s !== 200).every((s) => s === 402_002)).toBe(true);
  expect(billedLines(logs())).toHaveLength(accepted);
  expect((await t.store.accounts.require("acme")).balance).toBe(balance - accepted * COST);
  expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
}
