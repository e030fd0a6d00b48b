// Every fixture of what vLLM, SGLang, TGI, llama.cpp and Ollama really send, through the gateway's own
// classification, meter and charging policy: the endpoint class is the one the fixture names, the usage
// read is the usage the server reported (or an estimate when it reports none), however the bytes are cut
// into chunks, and a stream the gateway asked for usage reaches the client exactly as it would have without.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charge } from "../../src/billing/charge.js";
import type { UsageClass } from "../../src/core/endpoint-classes.js";
import type { ModelPrice } from "../../src/core/price.js";
import { ResponseMeter } from "../../src/proxy/meters/response-meter.js";
import { EndpointTable } from "../../src/proxy/request/endpoints.js";
import { ALL_FIXTURES, type UpstreamFixture } from "../fixtures/upstreams/index.js";

const table = new EndpointTable();
const LIMITS = { maxEventBytes: 1 << 20, maxJsonBytes: 4 << 20, maxDecompressedBytes: 64 << 20 };
const PRICE = {
  input: 1_000_000,
  output: 1_000_000,
  cachedInput: 1_000_000,
  cacheWrite: 1_000_000,
  perRequest: 0,
  maxOutputTokens: 4096,
  contextTokens: null,
  maxImageTokens: 4096,
  maxAudioTokens: 4096,
  maxVideoTokens: 4096,
};

function pieces(fixture: UpstreamFixture, cuts: number[]): Buffer[] {
  const bytes = Buffer.from(fixture.response.chunks.join(""));
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return out;
}

async function meter(fixture: UpstreamFixture, chunks: Buffer[], strip: boolean) {
  const m = new ResponseMeter(fixture.response.headers, strip ? { everyChunk: false } : null, LIMITS);
  const sent: Buffer[] = [];
  for (const chunk of chunks) {
    const out = m.push(chunk);
    sent.push(...(Array.isArray(out) ? out : [out]));
  }
  sent.push(...m.end());
  return { result: await m.result(), sent: Buffer.concat(sent).toString() };
}

/** 1 µ₽ per uncached prompt and completion token, 0.1 µ₽ per cached one, 3 µ₽ a request. */
const CACHE_PRICE = { ...PRICE, cachedInput: 100_000, perRequest: 3 };

function billed(
  fixture: UpstreamFixture,
  usageClass: UsageClass,
  result: Awaited<ReturnType<typeof meter>>["result"],
  price: ModelPrice = PRICE,
) {
  return charge({
    usageClass,
    processed: true,
    complete: true,
    status: fixture.response.status,
    reported: result.usage,
    estimate: { promptTokens: 1000, completionTokens: 1000 },
    maxCompletionTokens: usageClass === "input-only" ? 0 : 4096,
    maxPromptTokens: 100_000,
    price,
    reserved: 1_000_000_000,
    overage: "absorb",
  });
}

describe.each(ALL_FIXTURES.map((f) => [`${f.server} ${f.name}`, f] as const))("%s", (_name, fixture) => {
  const endpoint = table.classify(fixture.request.method, fixture.request.path);

  it("is classified as the fixture says", () => {
    expect(endpoint.class).toBe(fixture.endpointClass);
  });

  if (endpoint.class === "free" || endpoint.class === "management") return;
  const usageClass = endpoint.class;

  it("is billed the usage the server reported, however the bytes are cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        const { result, sent } = await meter(fixture, pieces(fixture, cuts), false);
        // Read along: the client gets the bytes as they came.
        expect(sent).toBe(fixture.response.chunks.join(""));
        const bill = billed(fixture, usageClass, result);
        if (fixture.response.status >= 400) {
          expect(bill.cost).toBe(0);
        } else if (fixture.usage === null) {
          expect(bill.estimated).toBe(true);
        } else {
          expect(bill).toMatchObject({
            estimated: false,
            rejected: null,
            tokens: {
              promptTokens: fixture.usage.promptTokens,
              completionTokens: fixture.usage.completionTokens ?? 0,
              cachedTokens: fixture.usage.cachedTokens ?? 0,
            },
          });
          // Cached prompt tokens at a tenth of the input price, the rest at the input price, exactly.
          const prompt = fixture.usage.promptTokens ?? 0;
          const cachedTokens = fixture.usage.cachedTokens ?? 0;
          const completion = usageClass === "input-only" ? 0 : (fixture.usage.completionTokens ?? 0);
          expect(billed(fixture, usageClass, result, CACHE_PRICE).cost).toBe(
            Math.ceil(((prompt - cachedTokens) * 10 + cachedTokens + completion * 10) / 10) + 3,
          );
        }
      }),
      { numRuns: 25 },
    );
  });

  const expected = fixture.withoutInjectedUsage;
  if (expected === undefined) return;
  it("reaches the client exactly as without the usage the gateway asked for, and is billed exactly", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        const { result, sent } = await meter(fixture, pieces(fixture, cuts), true);
        expect(sent).toBe(expected.join(""));
        expect(billed(fixture, usageClass, result)).toMatchObject({
          estimated: false,
          tokens: {
            promptTokens: fixture.usage?.promptTokens,
            completionTokens: fixture.usage?.completionTokens,
            cachedTokens: fixture.usage?.cachedTokens ?? 0,
          },
        });
      }),
      { numRuns: 25 },
    );
  });
});
