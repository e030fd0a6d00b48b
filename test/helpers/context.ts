// A gateway's request-path context (GatewayContext) for tests of its parts — the exchange, the forwarder —
// on the suite's Redis, with the observer and, unless a real queue is given, the settlement queue replaced
// by recorders.

import { Authenticator } from "../../src/auth/authenticator.js";
import { Pricing } from "../../src/billing/pricing.js";
import type { Settlement, SettlementQueue } from "../../src/billing/settlement-queue.js";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { createLogger } from "../../src/observability/logger.js";
import type { RequestObserver } from "../../src/observability/observer.js";
import type { RequestRecord } from "../../src/observability/request-record.js";
import type { GatewayContext } from "../../src/proxy/context.js";
import { EndpointTable } from "../../src/proxy/endpoints.js";
import { RequestTracker } from "../../src/proxy/request-tracker.js";
import type { TestStore } from "./store.js";

export interface Recorded {
  ctx: GatewayContext;
  finished: RequestRecord[];
  refused: RequestRecord[];
  /** Settlements handed to the recording queue (none when a real queue was given). */
  settled: Settlement[];
  logs: Record<string, unknown>[];
}

export function testContext(store: TestStore, config: ConfigInput, settlements?: SettlementQueue): Recorded {
  const parsed = configSchema.parse({ ...config, redis: { allowNoPersistence: true, ...config.redis } });
  const finished: RequestRecord[] = [];
  const refused: RequestRecord[] = [];
  const settled: Settlement[] = [];
  const logs: Record<string, unknown>[] = [];
  const observer: RequestObserver = {
    finished: (record) => finished.push(record),
    refused: (record) => refused.push(record),
    expiredReservations: () => {},
  };
  const ctx: GatewayContext = {
    config: parsed,
    stores: store.stores,
    authenticator: new Authenticator(store.keys),
    pricing: new Pricing(parsed.pricing),
    endpoints: new EndpointTable(parsed.endpoints),
    tracker: new RequestTracker(),
    settlements:
      settlements ?? ({ submit: (s: Settlement) => settled.push(s) } as unknown as SettlementQueue),
    leases: null,
    observer,
    logger: createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) }),
    readiness: async () => null,
  };
  return { ctx, finished, refused, settled, logs };
}
