// What the admission-lease tests share (test/e2e/leases.test.ts on one Redis, leases-cluster.test.ts on a
// Cluster): the request they send and what it reserves and costs, sending it, the replica's lease service,
// and warming a lease.

import { expect } from "vitest";
import type { LeaseService } from "../../src/billing/lease-service.js";
import { PRICING, type TestGateway } from "./gateway.js";
import { waitUntil } from "./wait.js";

export const BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 10,
  messages: [{ role: "user", content: "hi there you" }],
});
/** µ₽: the body counted as prompt tokens (one per byte) plus max_tokens completion tokens, at PRICING. */
export const WORST = Buffer.byteLength(BODY) * PRICING.default.input + 10 * PRICING.default.output;
/** µ₽: what the stub upstream reports for it: 3 prompt tokens, 10 completion tokens. */
export const COST = 3 * PRICING.default.input + 10 * PRICING.default.output;

export function chat(gateway: TestGateway, key: string): Promise<Response> {
  return gateway.fetch("/v1/chat/completions", {
    method: "POST",
    key,
    headers: { "content-type": "application/json" },
    body: BODY,
  });
}

export const leases = (t: TestGateway) => t.gateway.context.leases as LeaseService;

/** Sends requests one at a time until the replica admits one on its lease. */
export async function warm(t: TestGateway, key: string): Promise<void> {
  const before = leases(t).book.admitted;
  await waitUntil(async () => {
    const res = await chat(t, key);
    expect(res.status).toBe(200);
    await res.text();
    return leases(t).book.admitted > before;
  }, "a request admitted on the lease");
}
