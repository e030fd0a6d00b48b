// What the admission-lease tests share (test/e2e/leases.test.ts on one Redis, leases-cluster.test.ts on a
// Cluster): the request they send and what it reserves and costs, sending it, the replica's lease service,
// and warming a lease.

import { expect } from "vitest";
import type { LeaseService } from "../../src/billing/lease-service.js";
import { json, PRICING, type TestGateway } from "./gateway.js";
import { waitUntil } from "./wait.js";

/** The admin token the lease tests' gateways are configured with. */
export const ADMIN = "admin-token-0123456789";

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

export const leases = (t: TestGateway) => t.gateway.leases as LeaseService;

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

/**
 * Revokes a key through replica a's admin API while replica b serves it from its lease, and checks that b
 * drops the lease and refuses the key. The clock stands still: only the change feed can have told b.
 */
export async function revokedOnTheOtherReplica(a: TestGateway, b: TestGateway): Promise<void> {
  const key = await a.newKey();
  await warm(b, key.value);
  expect(leases(b).book.stats().leases).toBe(1);
  const res = await fetch(`${a.gateway.adminUrl}/admin/v1/accounts/acme/keys/${key.id}/revoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(200);
  await waitUntil(() => leases(b).book.stats().leases === 0, "replica b dropping the lease");
  const refused = await chat(b, key.value);
  expect(refused.status).toBe(401);
  expect((await json(refused)).error.code).toBe("key_revoked");
}
