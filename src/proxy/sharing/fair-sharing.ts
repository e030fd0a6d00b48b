// Fair sharing of one model server (docs/fair-sharing.md), built from the configuration: the gate with its
// places — this replica's, or shared by the replicas through Redis — where upstream.maxInFlight is set, and the
// keys' settings where the gate or a priority field needs them. With neither set, nothing is built and the
// request path never reaches any of it.

import type { Logger } from "pino";
import type { Config } from "../../config/schema.js";
import type { Stores } from "../../store/stores.js";
import { SharingCache } from "./sharing-cache.js";
import { UpstreamGate } from "./upstream-gate.js";
import { LocalSlots, SharedSlots, type SlotPool } from "./upstream-slots.js";

export interface FairSharing {
  gate: UpstreamGate | null;
  sharing: SharingCache | null;
  /** What the admin API shows of the gate (services/sharing.ts's QueueProbe); null without a limit. */
  probe: {
    limit: number;
    shared: boolean;
    inUse(): number;
    waiting(): number;
    account(accountId: string): { waiting: number; oldestWaitMs: number };
  } | null;
}

/** Repeated failures of one kind are logged once per this many ms. */
const WARN_EVERY_MS = 10_000;

export function createFairSharing(
  config: Pick<Config, "upstream" | "queue">,
  deps: { stores: Pick<Stores, "sharing" | "upstreamSlots">; now(): number; logger: Logger },
): FairSharing {
  const { maxInFlight, sharedInFlight, priorityField } = config.upstream;
  const sharing =
    maxInFlight === undefined && priorityField === undefined
      ? null
      : new SharingCache({
          store: deps.stores.sharing,
          maxWaitMs: config.queue.maxWaitMs,
          now: deps.now,
          onError: warnEvery(deps.logger, "could not read keys' fair-sharing settings; the defaults apply"),
        });
  if (maxInFlight === undefined) return { gate: null, sharing, probe: null };
  let gate: UpstreamGate | null = null;
  const slots: SlotPool = sharedInFlight
    ? new SharedSlots({
        store: deps.stores.upstreamSlots,
        limit: maxInFlight,
        now: deps.now,
        freed: () => gate?.pump(),
        onError: warnEvery(deps.logger, "could not sync the model server's shared places with Redis"),
      })
    : new LocalSlots(maxInFlight);
  const open = new UpstreamGate({ slots, bounds: config.queue });
  gate = open;
  return {
    gate,
    sharing,
    probe: {
      limit: maxInFlight,
      shared: sharedInFlight,
      inUse: () => open.inUse,
      waiting: () => open.waiting,
      account: (accountId) => open.accountState(accountId),
    },
  };
}

function warnEvery(logger: Logger, message: string): (error: unknown) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    const at = Date.now();
    if (at - lastAt < WARN_EVERY_MS) return;
    lastAt = at;
    logger.warn({ err: (error as Error).message }, message);
  };
}
