// The invalidation bound, measured: how soon after a revoke or a disable returns does the other replica stop
// admitting the key on its lease. Two gateways share one Redis; a fresh key is used on both until each holds
// a lease on it; a prober sends requests with it to the second gateway back to back (one at a time, so each
// send time is known to within one request); the change is made through the services, as the CLI and the
// admin API make it; the prober goes on until the key is refused. What counts is the last request *sent*
// after the change's reply that was still admitted: how many there were, and how long after the reply it
// left. docs/leases.md states the bound (50 ms, never more than 100 ms).

import { Pool } from "undici";
import { KeyService } from "../src/services/keys.js";
import type { Actor } from "../src/store/audit/audit-store.js";
import type { Stores } from "../src/store/stores.js";

export interface InvalidationFigures {
  trials: number;
  /** Requests sent after the change's reply and still admitted, over all trials, and the most in one. */
  admittedAfter: number;
  mostAdmittedAfter: number;
  /** How long after the reply the last admitted request left (ms; 0 when none was), median and maximum. */
  windowP50: number;
  windowMax: number;
  /** How long after the reply the first refusal came back (ms), median and maximum. */
  refusedP50: number;
  refusedMax: number;
}

const PATH = "/v1/chat/completions";
const BODY = JSON.stringify({
  model: "demo-small",
  max_tokens: 4,
  messages: [{ role: "user", content: "hi" }],
});
/** Requests on each gateway before a trial: the first takes the lease, the rest use it. */
const WARM = 20;
/** A prober that is never refused gives up after this long. */
const GIVE_UP_MS = 2000;

async function send(client: Pool, key: string): Promise<number> {
  const { statusCode, body } = await client.request({
    path: PATH,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: BODY,
  });
  await body.dump();
  return statusCode;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function measureInvalidation(options: {
  context: Stores;
  accountId: string;
  /** Two replicas' URLs: the change is made while the second one serves the key from its lease. */
  gateways: [string, string];
  trials: number;
}): Promise<InvalidationFigures> {
  const keys = new KeyService(options.context);
  const actor: Actor = { kind: "cli" };
  const [first, second] = options.gateways.map((url) => new Pool(url, { connections: 1, pipelining: 1 }));
  const windows: number[] = [];
  const refusals: number[] = [];
  let admittedAfter = 0;
  let mostAdmittedAfter = 0;
  try {
    for (let trial = 0; trial < options.trials; trial++) {
      const { record, value } = await keys.create(
        { accountId: options.accountId, name: `invalidation ${trial}` },
        actor,
      );
      for (let i = 0; i < WARM; i++) {
        for (const client of [first, second] as Pool[]) {
          const status = await send(client, value);
          if (status !== 200) throw new Error(`warming a lease: the gateway answered ${status}`);
        }
      }
      let changedAt = Number.POSITIVE_INFINITY;
      let lastAdmittedSentAt = Number.NEGATIVE_INFINITY;
      let after = 0;
      const probe = (async () => {
        for (;;) {
          const sentAt = performance.now();
          const status = await send(second as Pool, value);
          if (status === 200) {
            if (sentAt >= changedAt) {
              after++;
              lastAdmittedSentAt = sentAt;
            }
          } else {
            refusals.push(performance.now() - changedAt);
            return;
          }
          if (sentAt - changedAt > GIVE_UP_MS)
            throw new Error(`the key was still admitted ${GIVE_UP_MS} ms after`);
        }
      })();
      // Let the prober run on the lease for a moment, then change the key: revoke half the time, disable
      // the other half.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (trial % 2 === 0) await keys.revoke(record.id, actor);
      else await keys.setDisabled(record.id, true, actor);
      changedAt = performance.now();
      await probe;
      admittedAfter += after;
      mostAdmittedAfter = Math.max(mostAdmittedAfter, after);
      windows.push(after === 0 ? 0 : lastAdmittedSentAt - changedAt);
    }
  } finally {
    await Promise.all([first?.close(), second?.close()]);
  }
  return {
    trials: options.trials,
    admittedAfter,
    mostAdmittedAfter,
    windowP50: median(windows),
    windowMax: Math.max(0, ...windows),
    refusedP50: median(refusals),
    refusedMax: Math.max(0, ...refusals),
  };
}
