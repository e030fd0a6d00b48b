// The replica's own books against Redis': what it charged, account by account, since it started, compared
// with the ledger its settle calls keep in Redis (the '=charged' field of its settlement hash, written by the
// same script as each charge; lua/settle-n.lua). Replicas share accounts, so a replica never compares with
// an account's totals: only with what its own settlements wrote.
//
// When the ledger is read, it must hold every charge the replica had already been told was done (the read
// goes on the connection the settlements went on, after them), and may hold besides only what was pending
// then. Less is a charge lost (a failover lost a write a replica had acknowledged, a restore from an older
// backup, a flush); more is a charge the replica does not know of (a settlement it gave up on that had been
// made after all, a charge made twice, a hand edit). A difference seen by two checks in a row is reported:
// logged at error level once per account and amount, and exported as a metric (docs/billing.md#drift).
//
// The ledger's key is the replica's own (its id is new with every start), so the count starts from nothing
// on both sides; reading it also keeps it from expiring, so that it lives as long as the replica does and
// goes billing.lateSettlementSeconds after a replica that died.

import type { Micros } from "../core/money.js";
import { timerDelay } from "../core/timer-delay.js";
import type { BillingStore } from "../store/billing/billing-store.js";
import type { Settled, Settlement } from "../store/billing/settle-script.js";
import type { PendingSettlements } from "./pending-settlements.js";

export interface BooksWatchDeps {
  billing: Pick<BillingStore, "ledger">;
  pending: Pick<PendingSettlements, "of">;
  /**
   * A difference confirmed for an account, or its end (0): Redis' ledger minus what the replica charged
   * (µ₽; negative: charges missing from Redis), with the figures it comes from.
   */
  drift(report: DriftReport): void;
  onError(error: unknown): void;
}

export interface DriftReport {
  accountId: string;
  difference: Micros;
  /** What the replica charged the account since it started counting (µ₽). */
  charged: Micros;
  /** What Redis' ledger holds of it. */
  ledger: Micros;
  /** What was pending when the ledger was read. */
  pending: Micros;
}

interface Books {
  charged: Micros;
  /** A difference seen once, to be confirmed by the next check. */
  suspect: Micros | null;
  reported: Micros;
}

export class BooksWatch {
  private readonly accounts = new Map<string, Books>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly deps: BooksWatchDeps) {}

  /** A settlement is done (written, and acknowledged by the replicas asked for). */
  settled(settlement: Settlement, result: Settled): void {
    if (result.nothing) return;
    const accountId = settlement.ref.accountId;
    const books = this.accounts.get(accountId);
    // A duplicate was charged by an earlier attempt of this replica's: its ledger counted it then.
    if (books === undefined)
      this.accounts.set(accountId, { charged: settlement.cost, suspect: null, reported: 0 });
    else books.charged += settlement.cost;
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), timerDelay(intervalMs, 1));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Compares every account the replica settled lately with Redis' ledger once. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const checks: Promise<void>[] = [];
      for (const [accountId, books] of this.accounts) {
        checks.push(this.compare(accountId, books, books.charged, this.deps.pending.of(accountId).cost));
      }
      await Promise.all(checks);
    } finally {
      this.checking = false;
    }
  }

  /** Reads the ledger after every settlement done so far; `charged` and `pending` are as of now. */
  private async compare(accountId: string, books: Books, charged: Micros, pending: Micros): Promise<void> {
    let ledger: Micros;
    try {
      ledger = await this.deps.billing.ledger(accountId);
    } catch (error) {
      this.deps.onError(error);
      return;
    }
    let difference = 0;
    if (ledger < charged) difference = ledger - charged;
    else if (ledger > charged + pending) difference = ledger - charged - pending;
    if (difference === books.reported) {
      books.suspect = null;
      return;
    }
    if (books.suspect !== difference) {
      books.suspect = difference;
      return;
    }
    books.suspect = null;
    books.reported = difference;
    this.deps.drift({ accountId, difference, charged, ledger, pending });
  }
}
