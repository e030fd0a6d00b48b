// The request path's parts — the pipeline, the exchange, the request's end, the public listener — wired for
// tests of one of them on the suite's Redis, as gateway.ts wires them: one object that gives each the
// dependencies it asks for, with the observer and, unless a real queue is given, the settlement queue
// replaced by recorders. Tests may swap `ctx.observer` or `ctx.settlements`: the parts read them per call.

import { Authenticator } from "../../src/auth/authenticator.js";
import { Pricing } from "../../src/billing/pricing.js";
import { RequestBilling } from "../../src/billing/request-billing.js";
import type { SettlementQueue } from "../../src/billing/settlement-queue.js";
import { type Config, type ConfigInput, configSchema } from "../../src/config/schema.js";
import { GatewayEvents } from "../../src/core/channels.js";
import type { GatewayRequest } from "../../src/core/request.js";
import { createLogger } from "../../src/observability/logger.js";
import type { RequestObserver } from "../../src/observability/observer.js";
import { exchangeDeps, type PipelineDeps } from "../../src/proxy/pipeline.js";
import type { ExchangeDeps } from "../../src/proxy/relay/exchange.js";
import { EndpointTable } from "../../src/proxy/request/endpoints.js";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import type { PublicDeps } from "../../src/server/public-server.js";
import type { Settlement } from "../../src/store/billing/settle-script.js";
import type { TestStore } from "./store.js";

export type TestContext = PipelineDeps &
  PublicDeps & {
    config: Config;
    tracker: RequestTracker;
    billing: RequestBilling;
    pricing: Pricing;
    observer: RequestObserver;
    settlements: Pick<SettlementQueue, "submit">;
    /** What each exchange is given, ending its request through this context (request-end.ts). */
    exchange: ExchangeDeps;
  };

export interface Recorded {
  ctx: TestContext;
  finished: GatewayRequest[];
  refused: GatewayRequest[];
  /** Settlements handed to the recording queue (none when a real queue was given). */
  settled: Settlement[];
  logs: Record<string, unknown>[];
}

export function testContext(
  store: TestStore,
  config: ConfigInput,
  settlements?: Pick<SettlementQueue, "submit">,
): Recorded {
  const parsed = configSchema.parse({ ...config, redis: { allowNoPersistence: true, ...config.redis } });
  const finished: GatewayRequest[] = [];
  const refused: GatewayRequest[] = [];
  const settled: Settlement[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) });
  const observer: RequestObserver = {
    finished: (request) => finished.push(request),
    refused: (request) => refused.push(request),
    expiredReservations: () => {},
  };
  const ctx = {
    config: parsed,
    stores: store.stores,
    authenticator: new Authenticator(store.keys),
    pricing: new Pricing(parsed.pricing),
    endpoints: new EndpointTable(parsed.endpoints),
    tracker: new RequestTracker(),
    settlements: settlements ?? { submit: (s: Settlement) => void settled.push(s) },
    observer,
    logger,
    now: store.stores.now,
    readiness: async () => ({ ready: true }),
  } as unknown as TestContext;
  ctx.billing = new RequestBilling({
    pricing: ctx.pricing,
    maxPromptTokens: parsed.billing.maxPromptTokens,
    store: store.billing,
    leases: null,
    settlements: { submit: (settlement) => ctx.settlements.submit(settlement) },
    rules: {
      calendar: store.calendar,
      estimate: parsed.estimate,
      overage: parsed.billing.overage,
      logBodyBytes: parsed.requestLog.maxBodyBytes,
    },
    reservationTtlMs: parsed.billing.reservationTtlSeconds * 1000,
    now: store.stores.now,
    events: new GatewayEvents(),
    logger,
  });
  ctx.exchange = exchangeDeps(ctx);
  return { ctx, finished, refused, settled, logs };
}
