// Budget windows rolling on the system clock, not on an injected one: two gateway processes run under
// libfaketime, whose time the test moves by rewriting libfaketime's timestamp file, in the billing time zone
// Europe/Moscow (UTC+3) — the key's day rolls at local midnight while its month and the account's go on, and
// on the 1st every monthly window rolls. What the processes report is checked against the Redis they share.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { BudgetService } from "../../src/services/budgets.js";
import { ACTOR } from "../helpers/actor.js";
import { TestClock } from "../helpers/clock.js";
import { json, PRICING } from "../helpers/gateway.js";
import { type GatewayProcess, spawnGateway } from "../helpers/gateway-process.js";
import { BODY, COST, WORST } from "../helpers/leases.js";
import { openStore, type TestStore } from "../helpers/store.js";
import { type StubUpstream, startStubUpstream } from "../helpers/upstream.js";
import { waitUntil } from "../helpers/wait.js";

/** Where Debian and Ubuntu put libfaketime (apt package faketime, installed by npm run setup). */
const LIBFAKETIME = [
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/faketime/libfaketime.so.1",
].find((path) => existsSync(path));

let processes: GatewayProcess[] = [];
let upstream: StubUpstream | undefined;
let store: TestStore | undefined;
let dir: string | undefined;

afterEach(async () => {
  for (const p of processes) await p.stop();
  processes = [];
  await upstream?.close();
  upstream = undefined;
  store?.close();
  store = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** µ₽ from the rubles a client reads. */
const micros = (rubles: number) => Math.round(rubles * 1e6);

describe("budget windows on the system clock (libfaketime)", () => {
  it("roll the key's day at local midnight while the months go on, and every month on the 1st", async () => {
    if (!LIBFAKETIME)
      throw new Error("libfaketime is missing: npm run setup installs it (apt package faketime)");
    dir = mkdtempSync(join(tmpdir(), "tunnel-faketime-"));
    const timeFile = join(dir, "faketime");
    // "@": the processes' clock starts at that instant and runs on from it; rewritten, it jumps.
    const setTime = (utc: string) => writeFileSync(timeFile, `@${utc}\n`);
    setTime("2026-03-30 20:30:00"); // 23:30 on 30 March in Moscow

    store = await openStore({
      timezone: "Europe/Moscow",
      clock: new TestClock(Date.parse("2026-03-30T20:30:00.000Z")),
    });
    await store.accountService.create({ id: "acme", balance: "1000" }, ACTOR);
    await new BudgetService(store.stores).setAccountBudgets(
      "acme",
      { billing: "both", budgets: [`${(100 * WORST) / 1e6}/month`] },
      ACTOR,
    );
    const { value: key } = await store.keyService.create(
      {
        accountId: "acme",
        name: "faketime",
        budgets: [`${(3 * WORST) / 1e6}/day`, `${(100 * WORST) / 1e6}/month`],
      },
      ACTOR,
    );

    upstream = await startStubUpstream({});
    const env = {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: timeFile,
      // Read the file at every call, so that rewriting it moves the time of running processes.
      FAKETIME_NO_CACHE: "1",
      // Timers and durations keep the real monotonic clock: only the calendar moves.
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
    };
    const config = {
      pricing: PRICING,
      upstream: { url: upstream.url },
      billing: { timezone: "Europe/Moscow" },
      redis: { url: inject("redisUrl"), prefix: store.prefix },
    };
    processes = [await spawnGateway(config, env), await spawnGateway(config, env)];
    const [a, b] = processes as [GatewayProcess, GatewayProcess];

    const chat = (p: GatewayProcess) =>
      fetch(`${p.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: BODY,
      });
    const keyView = async () =>
      json(await fetch(`${a.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } }));
    const balanceView = async () =>
      json(await fetch(`${b.url}/v1/balance`, { headers: { authorization: `Bearer ${key}` } }));
    /** Waits until both processes have settled `month` µ₽ into the key's month; returns the key's view. */
    const settled = async (month: number) => {
      let view: any;
      await waitUntil(async () => {
        view = await keyView();
        return micros(view.budgets[1].spent) === month;
      }, `${month} µ₽ settled into the key's month`);
      return view;
    };

    // 30 March, 23:30 in Moscow: the key's day runs out, each process refusing by the day window.
    let served = 0;
    let refusal: any;
    for (let i = 0; i < 50 && !refusal; i++) {
      const res = await chat(i % 2 === 0 ? a : b);
      if (res.status === 200) {
        await res.text();
        served++;
      } else {
        expect(res.status).toBe(403);
        refusal = (await json(res)).error;
      }
    }
    expect(refusal).toMatchObject({ code: "budget_exceeded", window: { scope: "key", period: "day" } });
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served * COST).toBeLessThanOrEqual(3 * WORST);
    let view = await settled(served * COST);
    expect(micros(view.budgets[0].spent)).toBe(served * COST);
    expect(view.budgets[0].resets_at).toBe("2026-03-30T21:00:00.000Z"); // midnight in Moscow
    expect(view.budgets[1].resets_at).toBe("2026-03-31T21:00:00.000Z"); // 1 April in Moscow

    // Five seconds past midnight in Moscow, 31 March: the day is new, the months go on.
    setTime("2026-03-30 21:00:05");
    for (const p of [a, b]) {
      const res = await chat(p);
      expect(res.status).toBe(200);
      await res.text();
    }
    view = await settled((served + 2) * COST);
    expect(micros(view.budgets[0].spent)).toBe(2 * COST);
    expect(view.budgets[0].resets_at).toBe("2026-03-31T21:00:00.000Z");
    let balance = await balanceView();
    expect(micros(balance.budgets[0].spent)).toBe((served + 2) * COST);
    expect(balance.budgets[0].resets_at).toBe("2026-03-31T21:00:00.000Z");

    // 1 April in Moscow (still 31 March in UTC): every window starts again, the balance keeps every charge.
    setTime("2026-03-31 21:00:05");
    const res = await chat(b);
    expect(res.status).toBe(200);
    await res.text();
    view = await settled(COST);
    expect(micros(view.budgets[0].spent)).toBe(COST);
    expect(view.budgets[1].resets_at).toBe("2026-04-30T21:00:00.000Z");
    balance = await balanceView();
    expect(micros(balance.budgets[0].spent)).toBe(COST);
    expect(balance.budgets[0].resets_at).toBe("2026-04-30T21:00:00.000Z");
    expect(micros(balance.balance)).toBe(1_000_000_000 - (served + 3) * COST);
  });
});
