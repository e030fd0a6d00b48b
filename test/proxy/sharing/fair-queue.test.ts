// The fair queue on its own (no clock, no I/O): who goes next, in the queue's own order. Unit tests of the
// order it gives, and properties over random weights and traces (fast-check): nothing is lost or served twice,
// a key's requests keep their order, it never idles while something waits, every two accounts that wait
// throughout stay within SFQ's bound of their weighted shares, and an account's keys take its turns evenly.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FairQueue, type Ticket } from "../../../src/proxy/sharing/fair-queue.js";

interface Item {
  account: string;
  key: string;
  n: number;
}

function fill(
  queue: FairQueue<Item>,
  account: string,
  key: string,
  count: number,
  weight = 1,
): Ticket<Item>[] {
  return Array.from({ length: count }, (_, n) => queue.enqueue(account, key, weight, { account, key, n }));
}

function drain(queue: FairQueue<Item>, count = Number.POSITIVE_INFINITY): Item[] {
  const out: Item[] = [];
  while (out.length < count) {
    const item = queue.dequeue();
    if (item === undefined) break;
    out.push(item);
  }
  return out;
}

/** Jain's fairness index of the shares normalised by weight: 1 when every account got exactly its share. */
function jain(normalised: number[]): number {
  const sum = normalised.reduce((a, b) => a + b, 0);
  const squares = normalised.reduce((a, b) => a + b * b, 0);
  return (sum * sum) / (normalised.length * squares);
}

describe("FairQueue", () => {
  it("gives nothing when empty, and a tenant alone gets every turn in its order", () => {
    const queue = new FairQueue<Item>();
    expect(queue.dequeue()).toBeUndefined();
    fill(queue, "solo", "k", 5);
    expect(drain(queue).map((item) => item.n)).toEqual([0, 1, 2, 3, 4]);
    expect(queue.size).toBe(0);
  });

  it("alternates two accounts of equal weight, however many one of them sends", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "noisy", "k", 100);
    fill(queue, "quiet", "k", 3);
    expect(
      drain(queue, 8)
        .map((item) => item.account)
        .join(" "),
    ).toBe("noisy quiet noisy quiet noisy quiet noisy noisy");
  });

  it("serves a request that arrives behind a long backlog of another account within one turn", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "noisy", "k", 1000);
    drain(queue, 500);
    fill(queue, "quiet", "k", 1);
    const next = drain(queue, 2).map((item) => item.account);
    expect(next).toContain("quiet");
  });

  it("interleaves weights 3:1 rather than serving them in bursts", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "big", "k", 30, 3);
    fill(queue, "small", "k", 30, 1);
    const order = drain(queue, 40)
      .map((item) => (item.account === "big" ? "B" : "s"))
      .join("");
    // Deficit round robin with quanta 3 and 1 would give BBBs; interleaved, no run of B is longer than four.
    expect(Math.max(...order.split("s").map((run) => run.length))).toBeLessThanOrEqual(4);
    expect(order.replaceAll("B", "").length).toBe(10);
  });

  it("shares the turns 3:1 within 5 % with weights 3 and 1", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "big", "k", 10_000, 3);
    fill(queue, "small", "k", 10_000, 1);
    const served = drain(queue, 4000);
    const big = served.filter((item) => item.account === "big").length;
    const small = served.length - big;
    expect(Math.abs(big / small - 3) / 3).toBeLessThan(0.05);
  });

  it("lets an account's keys take its turns in round robin, a key with more waiting no more often", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "acme", "batch", 50);
    fill(queue, "acme", "chat", 2);
    fill(queue, "other", "k", 50);
    const acme = drain(queue, 10)
      .filter((item) => item.account === "acme")
      .map((item) => item.key);
    expect(acme).toEqual(["batch", "chat", "batch", "chat", "batch"]);
  });

  it("gives an account no credit for the time it did not wait", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "a", "k", 100);
    drain(queue, 60);
    fill(queue, "late", "k", 100);
    const next = drain(queue, 20);
    const late = next.filter((item) => item.account === "late").length;
    expect(late).toBe(10);
  });

  it("removes a request before its turn, once only, and skips it", () => {
    const queue = new FairQueue<Item>();
    const [first, second] = fill(queue, "a", "k", 3) as [Ticket<Item>, Ticket<Item>];
    expect(queue.remove(second)).toBe(true);
    expect(queue.remove(second)).toBe(false);
    expect(second.waiting).toBe(false);
    expect(drain(queue).map((item) => item.n)).toEqual([0, 2]);
    expect(first.waiting).toBe(false);
    expect(queue.remove(first)).toBe(false);
  });

  it("counts what waits per account and names the accounts waiting", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "a", "k1", 2);
    fill(queue, "a", "k2", 1);
    const [only] = fill(queue, "b", "k", 1) as [Ticket<Item>];
    expect(queue.waitingOf("a")).toBe(3);
    expect(new Map(queue.waitingAccounts())).toEqual(
      new Map([
        ["a", 3],
        ["b", 1],
      ]),
    );
    queue.remove(only);
    expect(queue.waitingOf("b")).toBe(0);
    expect([...queue.waitingAccounts()]).toEqual([["a", 3]]);
  });

  it("tells an account's share of the server among those waiting", () => {
    const queue = new FairQueue<Item>();
    fill(queue, "a", "k", 1, 3);
    fill(queue, "b", "k", 1, 1);
    expect(queue.shareOf("a", 3)).toBeCloseTo(0.75);
    expect(queue.shareOf("c", 4)).toBeCloseTo(0.5);
  });

  it("forgets idle accounts, so that many accounts passing through leave nothing behind", () => {
    const queue = new FairQueue<Item>();
    for (let i = 0; i < 10_000; i++) {
      fill(queue, `account-${i}`, "k", 1);
      drain(queue);
    }
    fill(queue, "last", "k", 1);
    drain(queue);
    // Reaches into the queue's bookkeeping: its map of accounts is what would grow.
    const flows = (queue as unknown as { flows: Map<string, unknown> }).flows;
    expect(flows.size).toBeLessThan(100);
  });
});

/** A random trace: enqueues (account, key) and dequeues, and removals of waiting tickets. */
type Op =
  | { kind: "enqueue"; account: number; key: number }
  | { kind: "dequeue" }
  | { kind: "remove"; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("enqueue" as const), account: fc.nat(4), key: fc.nat(2) }),
  fc.constant({ kind: "dequeue" as const }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat(1000) }),
);

describe("FairQueue properties", () => {
  it("serves or removes every request exactly once, keeps each key's order, and never idles while one waits", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 5, maxLength: 5 }),
        fc.array(op, { maxLength: 300 }),
        (weights, ops) => {
          const queue = new FairQueue<Item>();
          const waiting: Ticket<Item>[] = [];
          const lastServed = new Map<string, number>();
          let next = 0;
          let out = 0;
          for (const step of ops) {
            if (step.kind === "enqueue") {
              const account = `a${step.account}`;
              const key = `${account}/k${step.key}`;
              waiting.push(
                queue.enqueue(account, key, weights[step.account] as number, { account, key, n: next++ }),
              );
            } else if (step.kind === "dequeue") {
              const sizeBefore = queue.size;
              const item = queue.dequeue();
              if (sizeBefore > 0) expect(item).toBeDefined();
              else expect(item).toBeUndefined();
              if (item === undefined) continue;
              out++;
              expect(item.n).toBeGreaterThan(lastServed.get(item.key) ?? -1);
              lastServed.set(item.key, item.n);
            } else {
              const live = waiting.filter((ticket) => ticket.waiting);
              const ticket = live[step.pick % Math.max(1, live.length)];
              if (ticket) {
                expect(queue.remove(ticket)).toBe(true);
                out++;
              }
            }
            expect(queue.size).toBe(next - out);
          }
          const rest = drain(queue);
          expect(out + rest.length).toBe(next);
          expect(waiting.every((ticket) => !ticket.waiting)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps every two accounts that wait throughout within one request each of their weighted shares", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 400 }),
        (weights, turns) => {
          const queue = new FairQueue<Item>();
          weights.forEach((weight, i) => {
            fill(queue, `a${i}`, "k", 500, weight);
          });
          const served = weights.map(() => 0);
          // The largest excess over SFQ's bound for two backlogged flows (every request costing 1), after any turn.
          let excess = Number.NEGATIVE_INFINITY;
          for (let t = 0; t < turns; t++) {
            const item = queue.dequeue() as Item;
            const index = Number(item.account.slice(1));
            served[index] = (served[index] as number) + 1;
            for (let i = 0; i < weights.length; i++) {
              for (let j = i + 1; j < weights.length; j++) {
                const wi = weights[i] as number;
                const wj = weights[j] as number;
                const gap = Math.abs((served[i] as number) / wi - (served[j] as number) / wj);
                excess = Math.max(excess, gap - (1 / wi + 1 / wj));
              }
            }
          }
          expect(excess).toBeLessThanOrEqual(1e-9);
          if (turns >= 200) {
            expect(jain(served.map((n, i) => n / (weights[i] as number)))).toBeGreaterThanOrEqual(0.95);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("lets an account's keys that wait throughout take its turns within one of each other", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 200 }), (keys, turns) => {
        const queue = new FairQueue<Item>();
        for (let k = 0; k < keys; k++) fill(queue, "acme", `k${k}`, 300);
        fill(queue, "other", "k", 300, 2);
        const served = new Map<string, number>();
        for (let t = 0; t < turns; t++) {
          const item = queue.dequeue() as Item;
          if (item.account !== "acme") continue;
          served.set(item.key, (served.get(item.key) ?? 0) + 1);
          const counts = Array.from({ length: keys }, (_, k) => served.get(`k${k}`) ?? 0);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
