// The "no overspend under concurrency" scenario: 200 requests in parallel against a key whose budget (or
// whose account's balance) covers only some of them, through one or more gateways sharing one Redis.
// Used against a single Redis and against Redis Cluster.

import { expect } from "vitest";
import type { TestGateway } from "./gateway.js";

export const PARALLEL = 200;

function send(base: string, key: string, i: number): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    // Streamed every other time: both paths must hold the line.
    body: JSON.stringify({
      model: "demo-small",
      max_tokens: 10,
      stream: i % 2 === 0,
      messages: [{ role: "user", content: "hi there you" }],
    }),
  });
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

/** Sum of the costs (µ₽) in request log lines. */
export function charged(logs: Record<string, any>[]): { micros: number; requests: number } {
  const lines = logs.filter((line) => line.msg === "request");
  return {
    micros: lines.reduce((sum, line) => sum + Math.round(line.cost_rub * 1e6), 0),
    requests: lines.length,
  };
}

/**
 * Budget: 1 ₽ for requests that cost about 0.023 ₽ and reserve about 0.2 ₽. `settleAll` must return once
 * every gateway has written every settlement; `logs` then holds every gateway's log lines.
 */
export async function budgetHolds(
  t: TestGateway,
  bases: string[],
  settleAll: () => Promise<void>,
  logs: () => Record<string, any>[],
): Promise<void> {
  const key = await t.newKey({ budget: "1", period: "day" });
  const statuses = await fire(bases, key.value);
  await settleAll();
  const accepted = statuses.filter((s) => s === 200).length;
  expect(accepted).toBeGreaterThan(0);
  expect(accepted).toBeLessThan(PARALLEL);
  expect(statuses.filter((s) => s !== 200).every((s) => s === 403_001)).toBe(true);
  const record = await t.store.keys.get({ accountId: "acme", keyId: key.id });
  expect(record?.spent).toBeLessThanOrEqual(1_000_000);
  const logged = charged(logs());
  expect(logged.requests).toBe(accepted);
  expect(record?.spent).toBe(logged.micros);
  expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
}

/** Balance: 1.5 ₽ on an account whose key has no budget. */
export async function balanceHolds(
  t: TestGateway,
  bases: string[],
  settleAll: () => Promise<void>,
  logs: () => Record<string, any>[],
): Promise<void> {
  const key = await t.newKey({ balance: "1.5" });
  const statuses = await fire(bases, key.value);
  await settleAll();
  const accepted = statuses.filter((s) => s === 200).length;
  expect(accepted).toBeGreaterThan(0);
  expect(accepted).toBeLessThan(PARALLEL);
  expect(statuses.filter((s) => s !== 200).every((s) => s === 402_002)).toBe(true);
  expect(charged(logs()).requests).toBe(accepted);
  const balance = (await t.store.accounts.require("acme")).balance;
  expect(balance).toBeGreaterThanOrEqual(0);
  expect(balance).toBe(1_500_000 - charged(logs()).micros);
  expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
}
