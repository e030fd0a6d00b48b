// One replica of the billing layer, as gateway.ts builds it: its own Redis connection and stores (so its own
// replica id), lease service with its change feed (ticked by the test, not by a timer), settlement queue and
// request billing. What a live replica logs at warn or above, and every script Redis refuses on its
// connection, is kept: nothing should cause either. The request it is given is the GatewayRequest the
// forwarder would hand over, with the facts the exchange would have gathered when it ends.

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { LeaseService } from "../../../src/billing/lease-service.js";
import { RequestBilling } from "../../../src/billing/request-billing.js";
import { SettlementQueue } from "../../../src/billing/settlement-queue.js";
import { GatewayEvents } from "../../../src/core/channels.js";
import type { ModelPrice } from "../../../src/core/price.js";
import { type AdmittedRequest, GatewayRequest } from "../../../src/core/request.js";
import type { Refusal, Reservation } from "../../../src/store/billing/reserve-script.js";
import type { RedisClient } from "../../../src/store/connection/redis.js";
import { observeScriptErrors } from "../../../src/store/scripts.js";
import type { Stores } from "../../../src/store/stores.js";
import type { Price, Usage } from "./model.js";
import { connect, LATE_SETTLEMENT_SECONDS, type StoreSettings, storesFor } from "./operator.js";
import type { RequestSpec } from "./system.js";

export interface BillingReplica {
  redis: RedisClient;
  stores: Stores;
  leases: LeaseService | null;
  queue: SettlementQueue;
  billing: RequestBilling;
  /** What the reserve script answered last (a refusal's figures). */
  lastReply: Reservation | Refusal | null;
  /** Warnings and errors it logged, scripts Redis refused, settlements it dropped. */
  errors: unknown[];
  /**
   * Requests (by reservation id) whose next settle call is made in Redis but whose reply is lost, as on a
   * connection cut after the script ran: the queue sends the call again, which must charge nothing twice.
   */
  loseReply: Set<string>;
}

export async function openReplica(
  settings: StoreSettings,
  options: { leases: boolean; ttlMs: number },
): Promise<BillingReplica> {
  const redis = await connect();
  const stores = storesFor(redis, settings);
  const errors: unknown[] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void errors.push(JSON.parse(line)) });
  observeScriptErrors(redis, (script, error) => errors.push({ script, error: error.message }));
  const leases = options.leases
    ? new LeaseService({
        redis,
        keys: stores.redisKeys,
        billing: stores.billing,
        calendar: stores.calendar,
        now: settings.clock.now,
        ttlMs: options.ttlMs,
        logger,
        tickMs: 0,
      })
    : null;
  await leases?.start();
  const hooks = { failed: (_settlement: unknown, error: unknown) => errors.push(error) };
  const loseReply = new Set<string>();
  const store: Pick<Stores["billing"], "settleReplicated"> = {
    settleReplicated: async (accountId, settlements, acknowledged) => {
      const reply = await stores.billing.settleReplicated(accountId, settlements, acknowledged);
      if (!settlements.some((s) => loseReply.delete(s.reservationId))) return reply;
      throw new Error("Connection is closed.");
    },
  };
  const queue = new SettlementQueue(store, leases ? leases.settlementHooks(hooks) : hooks, {
    now: settings.clock.now,
    lateSettlementMs: LATE_SETTLEMENT_SECONDS * 1000,
  });
  const replica: BillingReplica = {
    redis,
    stores,
    leases,
    queue,
    billing: undefined as never,
    lastReply: null,
    errors,
    loseReply,
  };
  replica.billing = new RequestBilling({
    // Requests come priced (requestOf): admitWorst is given their price and worst case.
    pricing: {
      priceFor: () => {
        throw new Error("the money model admits requests it has priced itself");
      },
    },
    maxPromptTokens: 2_000_000,
    store: {
      reserve: async (ref, input) => {
        const reply = await stores.billing.reserve(ref, input);
        replica.lastReply = reply;
        return reply;
      },
    },
    leases,
    settlements: queue,
    rules: {
      calendar: stores.calendar,
      estimate: { reserveBytesPerToken: 1, usageBytesPerToken: 4 },
      overage: "absorb",
      logBodyBytes: 0,
    },
    reservationTtlMs: options.ttlMs,
    now: settings.clock.now,
    events: new GatewayEvents(),
    logger,
  });
  return replica;
}

/**
 * The request as the request path hands it to billing: its key, model, price and reservation id, worth
 * `spec.worst` at most.
 */
export function requestOf(spec: RequestSpec): AdmittedRequest {
  const request = new GatewayRequest(spec.id, "POST", "/v1/chat/completions", performance.now());
  request.model = spec.price.name;
  request.usageClass = "generation";
  request.endpointClass = "generation";
  return Object.assign(request, {
    ref: spec.key,
    price: modelPrice(spec.price),
    reservationId: randomUUID(),
  });
}

/** The request ran to its end: what the exchange would have gathered, with `usage` reported. */
export function ended(request: GatewayRequest, spec: RequestSpec, usage: Usage, now: number): void {
  request.forwardedAt = performance.now();
  request.upstreamStatus = usage.status;
  request.status = usage.status;
  request.outcome = "completed";
  request.metered = true;
  request.usage = { prompt: usage.prompt, completion: usage.completion, cached: usage.cached };
  request.promptEstimate = spec.promptMax;
  request.maxCompletionTokens = spec.cap;
  request.maxPromptTokens = spec.promptMax;
  request.end(now, performance.now());
}

function modelPrice(price: Price): ModelPrice {
  return {
    input: price.input,
    output: price.output,
    cachedInput: price.cachedInput,
    cacheWrite: price.input,
    perRequest: price.perRequest,
    maxOutputTokens: 4096,
    contextTokens: null,
    maxImageTokens: 0,
    maxAudioTokens: 0,
    maxVideoTokens: 0,
  };
}
