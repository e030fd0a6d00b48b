// The money path through real gateways, for the model's commands: one or two in-process gateways
// (test/helpers/gateway.ts) on the suite's Redis under one prefix and one clock the test moves, and a stub
// model server that holds each request until the test ends it with the usage it reports. A fleet is started
// once and serves many runs, each on an account of its own (GatewaySystem). Requests go over HTTP with the
// key's value; a refusal is read from the error body; a request is settled once it is in its key's recent
// requests. Kill, release and expiry are not driven here (a client leaving is charged by estimate, which the
// model does not know; the reservation keeper extends running requests' reservations on a timer of its own);
// the billing layer's runs drive them (billing-system.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { LeaseService } from "../../../src/billing/lease-service.js";
import type { Period } from "../../../src/core/periods.js";
import type { TestClock } from "../clock.js";
import { startTestGateway, type TestGateway } from "../gateway.js";
import { type StubUpstream, startStubUpstream } from "../upstream.js";
import { waitUntil } from "../wait.js";
import type { Mode, Price, Usage, WindowSpec } from "./model.js";
import { LATE_SETTLEMENT_SECONDS, MoneyOperator } from "./operator.js";
import type { Admission, MoneySystem, RequestSpec, Snapshot } from "./system.js";

/** The fleet's models and their prices (config pricing is in rubles per million tokens; the model's in µ₽). */
export const FLEET_PRICES: Price[] = [
  { name: "cached", input: 1_000_000_000, cachedInput: 250_000_000, output: 2_000_000_000, perRequest: 0 },
  {
    name: "fee",
    input: 1_500_000_000,
    cachedInput: 1_500_000_000,
    output: 3_000_000_000,
    perRequest: 50_000,
  },
];

interface Held {
  arrived: () => void;
  arrival: Promise<void>;
  finish: (usage: Usage) => void;
  usage: Promise<Usage>;
}

export class GatewayFleet {
  private readonly waiting = new Map<string, Held>();
  private accounts = 0;

  private constructor(
    readonly gateways: TestGateway[],
    readonly upstream: StubUpstream,
    readonly clock: TestClock,
    readonly leases: boolean,
  ) {
    upstream.handle((req, res, body) => this.answer(req, res, body));
  }

  static async start(options: { clock: TestClock; zone: string; ttlMs: number; leases: boolean }) {
    const upstream = await startStubUpstream();
    const pricing = {
      default: { input: 100, output: 300, maxOutputTokens: 4096 },
      models: Object.fromEntries(
        FLEET_PRICES.map((p) => [
          p.name,
          {
            input: p.input / 1e6,
            cachedInput: p.cachedInput / 1e6,
            output: p.output / 1e6,
            perRequest: p.perRequest / 1e6,
          },
        ]),
      ),
    };
    const config = {
      pricing,
      metrics: { enabled: false },
      billing: {
        timezone: options.zone,
        leases: options.leases,
        reservationTtlSeconds: options.ttlMs / 1000,
        lateSettlementSeconds: LATE_SETTLEMENT_SECONDS,
      },
    };
    const first = await startTestGateway({ upstreamUrl: upstream.url, clock: options.clock, config });
    const second = await startTestGateway({
      upstreamUrl: upstream.url,
      clock: options.clock,
      config: { ...config, redis: { prefix: first.config.redis.prefix } },
    });
    return new GatewayFleet([first, second], upstream, options.clock, options.leases);
  }

  /** A run on an account of its own, on the fleet's first `replicas` gateways. */
  async system(replicas: number, zone: string, balance: number): Promise<GatewaySystem> {
    const settings = {
      prefix: (this.gateways[0] as TestGateway).config.redis.prefix,
      zone,
      clock: this.clock,
    };
    const operator = await MoneyOperator.open(settings, `acct-${++this.accounts}`, balance);
    return new GatewaySystem(this, operator, replicas);
  }

  /** The request's hold at the model server, made on its arrival or on the test's call, whichever is first. */
  held(id: string): Held {
    let held = this.waiting.get(id);
    if (held === undefined) {
      let arrived = () => {};
      let finish: (usage: Usage) => void = () => {};
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const usage = new Promise<Usage>((resolve) => (finish = resolve));
      held = { arrived, arrival, finish, usage };
      this.waiting.set(id, held);
    }
    return held;
  }

  /** A request answered without reaching the model server (refused), or answered by it. */
  forget(id: string): void {
    this.waiting.delete(id);
  }

  async close(): Promise<void> {
    for (const gateway of this.gateways) await gateway.close();
    await this.upstream.close();
  }

  private async answer(_req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<boolean> {
    const id = (JSON.parse(body.toString()) as { user?: string }).user;
    if (id === undefined) return false;
    const held = this.held(id);
    held.arrived();
    const usage = await held.usage;
    this.forget(id);
    res.writeHead(usage.status, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          prompt_tokens_details: { cached_tokens: usage.cached },
        },
      }),
    );
    return true;
  }
}

interface Running {
  slot: number;
  keyId: string;
  response: Promise<Response>;
}

export class GatewaySystem implements MoneySystem {
  readonly accountId: string;
  private readonly running = new Map<string, Running>();
  /** Where each gateway's log was when the run began: what it logs from then on is this run's. */
  private readonly logStart: number[];

  constructor(
    private readonly fleet: GatewayFleet,
    private readonly operator: MoneyOperator,
    private readonly replicas: number,
  ) {
    this.accountId = operator.accountId;
    this.logStart = fleet.gateways.map((gateway) => gateway.logs.length);
  }

  replicaId(slot: number): string | null {
    return this.leases(slot)?.book.replicaId ?? null;
  }

  /** The request's body is padded to `wanted` bytes: the worst case counts every byte as a prompt token. */
  promptTokens(wanted: number): number {
    return Math.max(wanted, Buffer.byteLength(bodyOf(this.idOf("r00000"), "cached", 1000, 0)));
  }

  createKey(windows: readonly WindowSpec[]) {
    return this.operator.createKey(windows);
  }

  async setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void> {
    await this.operator.setAccount(mode, windows);
    await this.changeSeen();
  }

  async topUp(amount: number): Promise<void> {
    await this.operator.topUp(amount);
    await this.changeSeen();
  }

  async start(spec: RequestSpec): Promise<Admission> {
    const gateway = this.fleet.gateways[spec.slot] as TestGateway;
    const key = this.operator.keys.get(spec.key.keyId)?.value as string;
    // The fleet serves many runs: the request's id is made unique to this one's account.
    const id = this.idOf(spec.id);
    const base = Buffer.byteLength(bodyOf(id, spec.price.name, spec.cap, 0));
    const body = bodyOf(id, spec.price.name, spec.cap, spec.promptMax - base);
    const admittedBefore = this.leases(spec.slot)?.book.admitted ?? 0;
    const held = this.fleet.held(id);
    const response = gateway.fetch("/v1/chat/completions", {
      method: "POST",
      key,
      headers: { "content-type": "application/json", "x-request-id": id },
      body,
    });
    const first = await Promise.race([held.arrival.then(() => "forwarded"), response.then(() => "answered")]);
    if (first === "forwarded") {
      this.running.set(spec.id, { slot: spec.slot, keyId: spec.key.keyId, response });
      const leased = (this.leases(spec.slot)?.book.admitted ?? 0) > admittedBefore;
      return { ok: true, path: leased ? "lease" : "reserve", reservationId: null, leaseId: null };
    }
    this.fleet.forget(id);
    const res = await response;
    const refusal = (await res.json()) as {
      error: { code: string; window?: { scope: "key" | "account"; period: Period } };
    };
    if (res.status === 200)
      throw new Error(`request ${spec.id} was answered without reaching the model server`);
    return {
      ok: false,
      code: refusal.error.code,
      scope: refusal.error.window?.scope ?? null,
      period: refusal.error.window?.period ?? null,
      figures: null,
      exact: !this.fleet.leases,
    };
  }

  async finish(_slot: number, requests: readonly { id: string; usage: Usage }[]): Promise<void> {
    const ended = requests.map(({ id, usage }) => {
      const run = this.running.get(id) as Running;
      this.running.delete(id);
      this.fleet.held(this.idOf(id)).finish(usage);
      return { id: this.idOf(id), run };
    });
    for (const { run } of ended) await (await run.response).text();
    // Settled once the request is in its key's recent requests: the settle script writes both at once.
    await waitUntil(async () => {
      for (const { id, run } of ended) {
        const recent = await this.operator.stores.requestLog.recent(this.accountId, run.keyId, 0);
        if (!recent.some((entry) => entry.request_id === id)) return false;
      }
      return true;
    }, "the settlements written");
  }

  release(): Promise<void> {
    throw new Error("a client leaving is not driven through the gateways");
  }

  async tick(): Promise<void> {
    // The gateways tick their lease books on a timer of their own.
  }

  kill(): Promise<void> {
    throw new Error("a replica is not killed among the in-process gateways");
  }

  purge(): Promise<void> {
    return this.operator.purge();
  }

  snapshot(): Promise<Snapshot> {
    return this.operator.snapshot();
  }

  ledger(days: readonly string[]) {
    return this.operator.ledger(days);
  }

  /** Σ the costs the gateways' request log lines name for this run's account (µ₽). */
  loggedCharges(): number {
    return this.lines()
      .filter((line) => line.msg === "request" && line.account === this.accountId)
      .reduce((sum, line) => sum + Math.round((line.cost_rub as number) * 1e6), 0);
  }

  async quiesce(): Promise<void> {
    for (const gateway of this.fleet.gateways.slice(0, this.replicas)) await gateway.gateway.settled();
  }

  unexpectedErrors(): unknown[] {
    return this.lines().filter((line) => (line.level as number) >= 40);
  }

  /** Ends what a failed run left running, so that the fleet's next runs do not wait for it. */
  async close(): Promise<void> {
    for (const [id, run] of this.running) {
      this.fleet.held(this.idOf(id)).finish({ prompt: 0, cached: 0, completion: 0, status: 200 });
      await (await run.response).text();
    }
    this.running.clear();
    this.operator.close();
  }

  private idOf(id: string): string {
    return `${this.accountId}.${id}`;
  }

  private lines(): Record<string, unknown>[] {
    return this.fleet.gateways.flatMap((gateway, i) => gateway.logs.slice(this.logStart[i]));
  }

  private leases(slot: number): LeaseService | null {
    return (this.fleet.gateways[slot]?.gateway.leases as LeaseService | null) ?? null;
  }

  private async changeSeen(): Promise<void> {
    for (let slot = 0; slot < this.replicas; slot++) {
      const book = this.leases(slot)?.book;
      if (book) await waitUntil(() => book.stats().leases === 0, "the change reaching every gateway");
    }
  }
}

/** A chat completion asking for at most `cap` tokens, named by `user`, its prompt padded by `pad` bytes. */
function bodyOf(id: string, model: string, cap: number, pad: number): string {
  return JSON.stringify({
    model,
    max_tokens: cap,
    user: id,
    messages: [{ role: "user", content: "x".repeat(Math.max(0, pad)) }],
  });
}
