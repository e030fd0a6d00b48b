// A fleet of two in-process gateways (test/helpers/gateway.ts) on the suite's Redis under one prefix and one
// clock the test moves, configured with the fleet's prices, and a stub model server that holds each request
// until the test ends it with the usage it reports (a chat completion naming its request in `user`). Started
// once, it serves many runs of the money model, each on an account of its own (gateway-system.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { TestClock } from "../clock.js";
import { startTestGateway, type TestGateway } from "../gateway.js";
import { type StubUpstream, startStubUpstream } from "../upstream.js";
import { GatewaySystem } from "./gateway-system.js";
import type { Price, Usage } from "./model.js";
import { LATE_SETTLEMENT_SECONDS, MoneyOperator } from "./operator.js";

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

export interface Held {
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
