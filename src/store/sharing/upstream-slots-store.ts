// The model server's places as the replicas share them (upstream.sharedInFlight): one typed function over
// syncUpstreamSlots-2.lua, which sets this replica's count and gives it its part of the limit.

import type { RedisClient } from "../connection/redis.js";
import { type RedisObserver, timed } from "../connection/timing.js";
import type { RedisKeys } from "../redis-keys.js";
import { runScript } from "../scripts.js";

export interface SlotSync {
  now: number;
  /** When the replica's count expires unless it is sent again (ms). */
  expiresAt: number;
  /** upstream.maxInFlight. */
  limit: number;
  /** The replica's requests holding a place now. */
  inUse: number;
  /** Its requests waiting for one. */
  waiting: number;
}

export interface SlotCount {
  /** The places this replica holds now (at least what it had in use). */
  held: number;
  /** Its part of the limit among the replicas that want places, rounded up. */
  part: number;
  /** Every replica's count together. */
  total: number;
}

export class UpstreamSlotStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** This process among the replicas (the billing store's id). */
    private readonly replicaId: string,
    private readonly observe?: RedisObserver,
  ) {}

  async sync(input: SlotSync): Promise<SlotCount> {
    const { held, alive } = this.keys.upstreamSlots();
    const reply = await timed(this.observe, "sync_slots", () =>
      runScript<number[]>(
        this.redis,
        "syncUpstreamSlots",
        [held, alive],
        [input.now, input.expiresAt, input.limit, this.replicaId, input.inUse, input.waiting],
      ),
    );
    return { held: Number(reply[0]), part: Number(reply[1]), total: Number(reply[2]) };
  }
}
