// The admit stage on the suite's Redis, behind the real first stages on real HTTP requests: a request its key
// and account can pay for is priced, its worst case reserved in Redis and the admission written on its
// passage, with its key's fair-sharing settings for a request the model server runs; one they cannot pay for,
// or that asks for a model or a rate the key does not have, is refused with the table's error and holds
// nothing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SharingCache } from "../../../src/proxy/sharing/sharing-cache.js";
import { type AdmitDeps, admit } from "../../../src/proxy/stages/admit.js";
import { authenticate } from "../../../src/proxy/stages/authenticate.js";
import { classify } from "../../../src/proxy/stages/classify.js";
import { inspect } from "../../../src/proxy/stages/inspect.js";
import type { Admitted } from "../../../src/proxy/stages/phases.js";
import { SharingService } from "../../../src/services/sharing.js";
import { ACTOR } from "../../helpers/actor.js";
import { type TestContext, testContext } from "../../helpers/context.js";
import { json } from "../../helpers/http.js";
import { type StageServer, serveStages } from "../../helpers/stages.js";
import { openStore, type TestStore } from "../../helpers/store.js";

// 1 ₽ per 1000 prompt tokens, 2 ₽ per 1000 completion tokens: max_tokens 1000 is worth 2 ₽ of worst case.
const PRICING = { default: { input: 1000, output: 2000, maxOutputTokens: 100 } };

let store: TestStore;
let ctx: TestContext;
let server: StageServer | undefined;
let answered: number;

beforeEach(async () => {
  store = await openStore();
  ctx = testContext(store, { pricing: PRICING }).ctx;
  answered = 0;
  await store.accountService.create({ id: "acme", balance: "10" }, ACTOR);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  store.close();
});

async function serve(deps: Partial<AdmitDeps> = {}): Promise<StageServer> {
  const failures = { redisAnswered: () => void answered++ };
  server = await serveStages([
    authenticate.create(ctx),
    classify.create(ctx),
    inspect.create(ctx),
    admit.create({ billing: ctx.billing, failures, ...deps }),
  ]);
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
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
  };
}

/** The one passage that ran every stage. */
function admitted(at: StageServer, index = 0): Admitted {
  const ran = at.ran[index];
  expect(ran?.error).toBeNull();
  return ran?.passage as unknown as Admitted;
}

describe("the admit stage", () => {
  it("reserves a request's worst case in Redis and writes its admission on the passage", async () => {
    const at = await serve();
    const { value, id } = await key();
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 1000 }));
    expect(res.status).toBe(204);
    const passage = admitted(at);
    const { admission, request } = passage;
    expect(admission.request).toBe(request);
    expect(admission.cap).toBe(1000);
    expect(admission.worst.completionTokens).toBe(1000);
    expect(admission.worst.amount).toBeGreaterThanOrEqual(2_000_000);
    expect(request).toMatchObject({
      admission: "reserve",
      ref: { accountId: "acme", keyId: id },
      model: "m",
      reserved: admission.worst.amount,
      keyName: "k",
    });
    expect(await store.billing.reserved("acme")).toEqual({
      account: admission.worst.amount,
      keys: { [id]: admission.worst.amount },
    });
    // No fair sharing configured: no settings read.
    expect(passage.sharing).toBeNull();
    expect(answered).toBe(1);
  });

  it("refuses a key whose budget window is smaller than the worst case with 403 budget_exceeded, holding nothing", async () => {
    const at = await serve();
    const { value } = await key({ budget: "1", period: "day" });
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 1000 }));
    expect(res.status).toBe(403);
    const body = await json(res);
    expect(body.error.code).toBe("budget_exceeded");
    expect(body.error.window).toEqual({ scope: "key", period: "day" });
    expect(at.ran[0]?.passage.admission).toBeNull();
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
    expect(answered).toBe(0);
  });

  it("refuses a request the account's balance cannot cover with 402 insufficient_balance", async () => {
    const at = await serve();
    const { value } = await key();
    // 10 ₽ of balance; 10 000 tokens of output at 2 ₽ per 1000 are 20 ₽.
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10_000 }));
    expect(res.status).toBe(402);
    expect((await json(res)).error.code).toBe("insufficient_balance");
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("refuses a model outside the key's model list with 403 model_not_allowed, naming the model", async () => {
    const at = await serve();
    const { value } = await key({ models: ["small"] });
    const res = await fetch(`${at.url}/v1/chat/completions`, chat(value, { model: "big", max_tokens: 10 }));
    expect(res.status).toBe(403);
    const body = await json(res);
    expect(body.error.code).toBe("model_not_allowed");
    expect(body.error.message).toContain('"big"');
    expect(await store.billing.reserved("acme")).toEqual({ account: 0, keys: {} });
  });

  it("gives the key's per-minute limits to the admission and refuses past them with 429 rate_limit_exceeded", async () => {
    const at = await serve();
    const { value } = await key({ rpm: 2 });
    const first = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }));
    expect(first.status).toBe(204);
    expect(admitted(at, 0).admission.rpm).toMatchObject({ limit: 2, remaining: 1 });
    expect(admitted(at, 0).admission.tpm).toBeNull();
    expect((await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }))).status).toBe(204);
    expect(admitted(at, 1).admission.rpm).toMatchObject({ limit: 2, remaining: 0 });
    const third = await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }));
    expect(third.status).toBe(429);
    expect((await json(third)).error.code).toBe("rate_limit_exceeded");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("reads the key's fair-sharing settings for a request the model server runs", async () => {
    const { value, id } = await key();
    await new SharingService(store.stores).setKey(id, { priority: 4, maxWaitMs: 750 }, ACTOR);
    const cache = new SharingCache({
      store: store.stores.sharing,
      maxWaitMs: 30_000,
      now: store.clock.now,
      onError: (error) => {
        throw error;
      },
    });
    const at = await serve({ sharing: cache });
    expect((await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }))).status).toBe(204);
    expect(admitted(at).sharing).toEqual({ weight: 1, priority: 4, maxWaitMs: 750 });
    // Cached now: the next request is admitted with the same settings.
    expect((await fetch(`${at.url}/v1/chat/completions`, chat(value, { max_tokens: 10 }))).status).toBe(204);
    expect(admitted(at, 1).sharing).toEqual({ weight: 1, priority: 4, maxWaitMs: 750 });
  });

  it("reads no fair-sharing settings for a request the model server does not run (a bodiless GET)", async () => {
    const { value } = await key();
    const asked: string[] = [];
    const cache = new SharingCache({
      store: store.stores.sharing,
      maxWaitMs: 30_000,
      now: store.clock.now,
      onError: () => {},
    });
    const at = await serve({
      sharing: {
        get: (ref) => {
          asked.push(ref.keyId);
          return cache.get(ref);
        },
      },
    });
    const res = await fetch(`${at.url}/v1/models`, { headers: { authorization: `Bearer ${value}` } });
    expect(res.status).toBe(204);
    const passage = admitted(at);
    expect(passage.request.usageClass).toBeNull();
    expect(passage.sharing).toBeNull();
    expect(asked).toEqual([]);
    expect(passage.admission.worst.amount).toBe(0);
  });
});
