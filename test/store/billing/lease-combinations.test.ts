// The admission lease for every combination of a key's windows (none to three), its account's windows and
// billing mode (prepaid without windows; budgeted and both with one to three; budgeted left without windows
// by a hand-edited record), against the real lease-5.lua and settle-n.lua: the grant is half of the tightest
// limit, and a leased settlement charges every window once and puts its hold back only as far as half of the
// tightest limit after the charge allows. A key without a window of its own once made lease-5.lua ignore its
// account's windows (mode both) or fail (mode budgeted): freeToReserve cut its list of limits at the nil.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BillingMode } from "../../../src/core/budget-windows.js";
import type { KeyRef } from "../../../src/core/key-ref.js";
import { parseRubles } from "../../../src/core/money.js";
import { BudgetService } from "../../../src/services/budgets.js";
import { ACTOR } from "../../helpers/actor.js";
import { leaseAt, settlementAt } from "../../helpers/billing-scripts.js";
import { openStore, type TestStore } from "../../helpers/store.js";

const rub = (text: string) => parseRubles(text, "test amount");

let store: TestStore;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

/** A key's windows: the tightest of them changes with their number (the month's is the smallest). */
const KEY_WINDOWS = [[], ["30/day"], ["30/day", "20/week"], ["30/day", "20/week", "16/month"]];
/** An account's: each narrower than the key's of the same number, so that either may be the tightest. */
const ACCOUNT_WINDOWS = [[], ["25/day"], ["25/day", "18/week"], ["25/day", "18/week", "14/month"]];
const BALANCE = "19";

interface AccountCase {
  mode: BillingMode;
  windows: number;
  /** A budgeted account left without windows by a hand-edited record: its balance limits it. */
  handEdited?: boolean;
}

const ACCOUNTS: AccountCase[] = [
  { mode: "prepaid", windows: 0 },
  { mode: "budgeted", windows: 0, handEdited: true },
  ...[1, 2, 3].flatMap((windows) => [
    { mode: "budgeted" as const, windows },
    { mode: "both" as const, windows },
  ]),
];

const CASES = ACCOUNTS.flatMap((account) =>
  [0, 1, 2, 3].map((keyWindows) => ({
    ...account,
    keyWindows,
    name: `account ${account.mode}${account.handEdited ? " (hand-edited)" : ""} with ${account.windows} window(s), key with ${keyWindows}`,
  })),
);

function least(texts: string[]): number | null {
  const amounts = texts.map((text) => rub(text.split("/")[0] as string));
  return amounts.length === 0 ? null : Math.min(...amounts);
}

let accounts = 0;

async function setUp(c: AccountCase & { keyWindows: number }) {
  const accountId = `combo-${++accounts}`;
  await store.accountService.create({ id: accountId, balance: BALANCE }, ACTOR);
  if (c.windows > 0) {
    await new BudgetService(store.stores).setAccountBudgets(
      accountId,
      { billing: c.mode, budgets: ACCOUNT_WINDOWS[c.windows] },
      ACTOR,
    );
  }
  if (c.handEdited) await store.redis.hset(store.redisKeys.account(accountId), "billing", "budgeted");
  const budgets = KEY_WINDOWS[c.keyWindows] as string[];
  const { record } = await store.keyService.create(
    { accountId, name: "k", ...(budgets.length > 0 && { budgets }) },
    ACTOR,
  );
  const limits = [
    least(budgets),
    least(ACCOUNT_WINDOWS[c.windows] as string[]),
    c.mode === "budgeted" && c.windows > 0 ? null : rub(BALANCE),
  ].filter((limit): limit is number => limit !== null);
  return { ref: { accountId, keyId: record.id } satisfies KeyRef, tightest: Math.min(...limits) };
}

function lease(ref: KeyRef, leaseId: string, amount: number) {
  return store.billing.lease(ref, leaseAt(store, leaseId, amount));
}

function settleLeased(ref: KeyRef, leaseId: string, hold: number, cost: number) {
  return store.billing.settleMany(ref.accountId, [
    {
      ...settlementAt(store, randomUUID(), cost, {
        leaseHold: { leaseId, hold, marker: randomUUID(), share: 2 },
      }),
      ref,
    },
  ]);
}

describe("a lease, for every combination of key windows, account windows and billing mode", () => {
  for (const c of CASES) {
    it(`${c.name}: granted half the tightest limit, refilled within it`, async () => {
      const { ref, tightest } = await setUp(c);
      const leaseId = `lease:r1:${ref.keyId}:0`;
      const granted = Math.floor(tightest / 2);
      expect(await lease(ref, leaseId, rub("1000"))).toMatchObject({ state: "ok", amount: granted });

      const hold = rub("4");
      const cost = rub("3");
      const [settled] = await settleLeased(ref, leaseId, hold, cost);
      const refilled = Math.min(granted, Math.max(granted - hold, Math.floor((tightest - cost) / 2)));
      expect(settled).toMatchObject({ duplicate: false, lease: { delta: refilled - granted, live: true } });
      expect(await store.billing.reserved(ref.accountId)).toEqual({
        account: refilled,
        keys: { [ref.keyId]: refilled },
      });

      const account = await store.accounts.require(ref.accountId);
      const key = await store.keys.get(ref);
      expect(account.budgets.map((window) => window.spent)).toEqual(account.budgets.map(() => cost));
      expect(key?.budgets.map((window) => window.spent)).toEqual(key?.budgets.map(() => cost));
      const charged = !(c.mode === "budgeted" && c.windows > 0);
      expect(account.balance).toBe(rub(BALANCE) - (charged ? cost : 0));
    });
  }
});
