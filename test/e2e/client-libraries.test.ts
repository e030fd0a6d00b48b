// A mixed run of every endpoint class through the official client libraries — openai 6, @anthropic-ai/sdk
// 0.x (which sends the key as x-api-key) and 1.x (Bearer), the Vercel AI SDK, LangChain — spread over two
// gateway replicas sharing the suite's Redis (one in this process, one `serve` process), in front of a stub
// model server that answers in the real servers' shapes (test/helpers/model-server.ts). Hostile cases are
// mixed in on both sides: usage reports of Number.MAX_SAFE_INTEGER tokens, a credible report beyond the
// reservation, an upstream that resets mid-stream, clients that abort, invalid caps, wrong keys and
// management paths. The cases, one request each, are in client-cases/. Then the money is proven: Σ costs in
// both replicas' request logs = Σ the keys' spent amounts = the account's change in balance, to the
// micro-ruble, with nothing left reserved.

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { costOf, Pricing } from "../../src/billing/pricing.js";
import { readRubles } from "../../src/core/money.js";
import { AccountUsageService } from "../../src/services/account-usage.js";
import { RealClock } from "../helpers/clock.js";
import { startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { type Answer, type ModelServer, startModelServer } from "../helpers/model-server.js";
import { ANTHROPIC_CASES } from "./client-cases/anthropic.js";
import { type Case, type Library, MODEL } from "./client-cases/case.js";
import { LANGCHAIN_CASES } from "./client-cases/langchain.js";
import { OPENAI_CASES } from "./client-cases/openai.js";
import { VERCEL_CASES } from "./client-cases/vercel.js";

/** Prices with six decimals, so that costs are rounded up to the micro-ruble on every request. */
const PRICING = { default: { input: "1234.567891", output: "2345.678912", maxOutputTokens: 64 } };
const BALANCE = "100";

const CASES: Case[] = [...OPENAI_CASES, ...ANTHROPIC_CASES, ...VERCEL_CASES, ...LANGCHAIN_CASES];

const LIBRARIES: Library[] = ["openai", "anthropic0", "anthropic1", "vercel", "langchain"];

let upstream: ModelServer;
let t: TestGateway;
let second: GatewayProcess | undefined;
const keys = new Map<Library, { value: string; id: string }>();
const replicas: { name: string; url: string; logs: () => Record<string, any>[] }[] = [];
/** Each case's failure on each replica, if any. */
const failures: string[] = [];
let balanceBefore = 0;

beforeAll(async () => {
  upstream = await startModelServer();
  // Both gateways judge reservations' expiry by the same clock: the real one.
  t = await startTestGateway({
    upstreamUrl: upstream.url,
    config: { pricing: PRICING },
    clock: new RealClock(),
  });
  second = await spawnGateway(
    {
      pricing: PRICING,
      upstream: { url: upstream.url },
      redis: { url: inject("redisUrl"), prefix: t.config.redis.prefix },
    },
    { TUNNEL_LOG_LEVEL: "info" },
  );
  const serve = second;
  replicas.push(
    { name: "in-process", url: t.url, logs: () => t.logs },
    { name: "serve process", url: serve.url, logs: () => serve.logs },
  );
  for (const library of LIBRARIES) keys.set(library, await t.newKey({ balance: BALANCE }));
  balanceBefore = (await t.store.accounts.require("acme")).balance;

  // Every case through every replica, all at once.
  await Promise.all(
    replicas.flatMap((replica) =>
      CASES.map((c) =>
        c
          .run({
            base: replica.url,
            key: keys.get(c.library)!.value,
            headers: { "x-case": c.name },
            upstream,
          })
          .catch((error: unknown) => failures.push(`${c.name} via ${replica.name}: ${String(error)}`)),
      ),
    ),
  );
  // Every settlement written: the in-process gateway's, and the process' (a clean stop flushes them).
  await t.gateway.settled();
  const code = await second.stop();
  if (code !== 0) throw new Error(`the serve process exited with ${code}: ${second.stderr()}`);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await t?.close();
  await upstream?.close();
});

const requestLines = (logs: Record<string, any>[]) => logs.filter((line) => line.msg === "request");
const refusedLines = (logs: Record<string, any>[]) => logs.filter((line) => line.msg === "request refused");
const allRequestLines = () => replicas.flatMap((replica) => requestLines(replica.logs()));

/** A log line's cost_rub in µ₽, read from its decimal form: exact, no float arithmetic. */
function micros(rubles: number): number {
  const value = readRubles(String(rubles));
  if (value === undefined) throw new Error(`cost_rub ${rubles} is not an amount of rubles`);
  return value;
}

function caseOf(line: Record<string, any>): { c: Case; answer: Answer } {
  const answer = upstream.answerFor(line.request_id);
  const c = CASES.find((candidate) => candidate.name === answer?.testCase);
  if (!answer || !c) throw new Error(`no case for the request log line ${JSON.stringify(line)}`);
  return { c, answer };
}

describe("the official client libraries through two replicas", () => {
  it("each library gets what it asked for, typed errors included, through either replica", () => {
    expect(failures).toEqual([]);
    for (const answer of upstream.answers) {
      CASES.find((c) => c.name === answer.testCase)?.received?.(answer);
    }
  });

  it("never forwards a key, whichever header the library sent it in", () => {
    const values = [...keys.values()].map((key) => key.value);
    for (const answer of upstream.answers) {
      const headers = JSON.stringify(answer.headers);
      for (const value of values) expect(headers, answer.testCase).not.toContain(value);
      expect(answer.headers.authorization, answer.testCase).toBeUndefined();
      expect(answer.headers["x-api-key"], answer.testCase).toBeUndefined();
    }
  });

  it("each replica logs every forwarded case once and refuses the rest before forwarding", () => {
    const forwarded = CASES.filter((c) => c.billing.kind !== "refused").map((c) => c.name);
    const refused = CASES.flatMap((c) => (c.billing.kind === "refused" ? [c.billing] : []));
    for (const replica of replicas) {
      const names = requestLines(replica.logs()).map((line) => caseOf(line).c.name);
      expect(names.sort(), replica.name).toEqual([...forwarded].sort());
      const codes = refusedLines(replica.logs()).map((line) => `${line.status} ${line.code}`);
      expect(codes.sort(), replica.name).toEqual(refused.map((r) => `${r.status} ${r.code}`).sort());
    }
    // Nothing refused reached the model server: each forwarded case arrived once per replica.
    expect(upstream.answers).toHaveLength(forwarded.length * replicas.length);
  });

  it("bills every exact request exactly what the model server reported, to the micro-ruble", () => {
    const pricing = new Pricing(t.config.pricing);
    for (const line of allRequestLines()) {
      const { c, answer } = caseOf(line);
      if (c.billing.kind !== "exact" && c.billing.kind !== "overage") continue;
      const what = `${c.name}: ${JSON.stringify(line)}`;
      expect(line, what).toMatchObject({ status: 200, outcome: "completed", usage_estimated: false });
      expect(line.usage_rejected, what).toBeUndefined();
      if (c.billing.kind === "exact" && c.billing.endpointClass === "free") {
        expect(line, what).toMatchObject({ endpoint_class: "free", prompt_tokens: 0, completion_tokens: 0 });
        expect(line.cost_rub, what).toBe(0);
        continue;
      }
      const reported = answer.usage!;
      expect(line, what).toMatchObject({
        endpoint_class: c.billing.endpointClass,
        prompt_tokens: reported.promptTokens,
        completion_tokens: reported.completionTokens,
      });
      const full = costOf(reported, pricing.priceFor(line.model));
      if (c.billing.kind === "exact") {
        expect(line.overage_rub, what).toBeUndefined();
        expect(micros(line.cost_rub), what).toBe(full);
      } else {
        // Absorbed: the reservation is charged, the rest is logged as overage.
        expect(micros(line.overage_rub), what).toBeGreaterThan(0);
        expect(micros(line.cost_rub) + micros(line.overage_rub), what).toBe(full);
      }
    }
  });

  it("bills hostile requests by estimate within their reservation, says why, and nothing unanswered", () => {
    const pricing = new Pricing(t.config.pricing);
    for (const line of allRequestLines()) {
      const { c, answer } = caseOf(line);
      const what = `${c.name}: ${JSON.stringify(line)}`;
      if (c.billing.kind === "upstream_unavailable") {
        expect(line, what).toMatchObject({
          status: 502,
          outcome: "upstream_unavailable",
          prompt_tokens: 0,
          completion_tokens: 0,
          cost_rub: 0,
        });
        continue;
      }
      if (c.billing.kind === "rejected") {
        expect(line, what).toMatchObject({
          status: 200,
          outcome: "completed",
          usage_estimated: true,
          usage_rejected: c.billing.reason,
        });
      } else if (c.billing.kind === "upstream_reset") {
        expect(line, what).toMatchObject({ status: 200, outcome: c.billing.kind, usage_estimated: true });
      } else if (c.billing.kind === "client_aborted") {
        const { status } = c.billing;
        expect(line, what).toMatchObject({ status, outcome: c.billing.kind, usage_estimated: true });
      } else {
        continue;
      }
      // The reservation is at most the forwarded body's bytes as prompt tokens plus the cap's completion
      // (none for an input-only request).
      const body = answer.body as Record<string, number>;
      const cap = body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? 0;
      const bound = costOf(
        { promptTokens: Buffer.byteLength(JSON.stringify(answer.body)), completionTokens: cap },
        pricing.priceFor(MODEL),
      );
      expect(line.completion_tokens, what).toBeLessThanOrEqual(cap);
      expect(micros(line.cost_rub), what).toBeGreaterThan(0);
      expect(micros(line.cost_rub), what).toBeLessThanOrEqual(bound);
    }
  });

  it("reconciles: Σ costs in both request logs = Σ the keys' spent = Δ balance, and nothing stays reserved", async () => {
    const lines = allRequestLines();
    const logged = lines.reduce((sum, line) => sum + micros(line.cost_rub), 0);
    let spent = 0;
    for (const [library, key] of keys) {
      const record = await t.store.keys.get({ accountId: "acme", keyId: key.id });
      const keyLogged = lines
        .filter((line) => line.key_id === key.id)
        .reduce((sum, line) => sum + micros(line.cost_rub), 0);
      expect(record?.spent, library).toBe(keyLogged);
      spent += record?.spent ?? 0;
    }
    const balanceAfter = (await t.store.accounts.require("acme")).balance;
    expect(logged).toBeGreaterThan(0);
    expect(spent).toBe(logged);
    expect(balanceBefore - balanceAfter).toBe(logged);
    expect(await t.store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    // The usage the dashboard shows says the same: the day's counters, their split by model, the month's.
    const usage = await new AccountUsageService(t.store.stores).report("acme");
    expect(micros(usage.totals.range.cost)).toBe(logged);
    expect(usage.totals.range.requests).toBe(lines.length);
    expect(usage.models.reduce((sum, row) => sum + micros(row.cost), 0)).toBe(logged);
    const month = usage.month;
    expect(Number(await t.store.redis.hget(t.store.redisKeys.month("acme", month), "cost"))).toBe(logged);
  });
});
