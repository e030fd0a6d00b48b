// The settlements a replica has handed to its queue and is not done with yet — batched, in flight, waiting
// for a retry or for a replica — by request and by account: what a caller asking for one of its requests is
// told while it is still pending (server/caller-routes.ts), and what the books watch allows Redis to hold
// beyond what the replica knows it charged (books-watch.ts).

import type { Micros } from "../core/money.js";
import type { Settlement } from "../store/billing/settle-script.js";

export class PendingSettlements {
  private readonly byRequest = new Map<string, Settlement>();
  private readonly byAccount = new Map<string, { count: number; cost: Micros }>();

  add(settlement: Settlement): void {
    if (settlement.requestId)
      this.byRequest.set(requestKey(settlement.ref.keyId, settlement.requestId), settlement);
    const account = settlement.ref.accountId;
    const pending = this.byAccount.get(account);
    if (pending === undefined) this.byAccount.set(account, { count: 1, cost: settlement.cost });
    else {
      pending.count++;
      pending.cost += settlement.cost;
    }
  }

  remove(settlement: Settlement): void {
    if (settlement.requestId) {
      const key = requestKey(settlement.ref.keyId, settlement.requestId);
      // A client's own X-Request-Id may have been used again: only this settlement's own entry goes.
      if (this.byRequest.get(key) === settlement) this.byRequest.delete(key);
    }
    const account = settlement.ref.accountId;
    const pending = this.byAccount.get(account);
    if (pending === undefined) return;
    pending.count--;
    pending.cost -= settlement.cost;
    if (pending.count === 0) this.byAccount.delete(account);
  }

  /** The key's latest pending settlement of the request with this id, if the replica holds one. */
  request(keyId: string, requestId: string): Settlement | undefined {
    return this.byRequest.get(requestKey(keyId, requestId));
  }

  /** How many of the account's settlements are pending, and what they will charge (µ₽). */
  of(accountId: string): { count: number; cost: Micros } {
    const pending = this.byAccount.get(accountId);
    return pending === undefined ? { count: 0, cost: 0 } : { ...pending };
  }
}

function requestKey(keyId: string, requestId: string): string {
  return `${keyId} ${requestId}`;
}
