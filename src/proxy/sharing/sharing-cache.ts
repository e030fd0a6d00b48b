// Each key's fair-sharing settings as the request path uses them (core/sharing.ts: its account's weight, its
// priority at the model server, its longest wait), cached in-process so that a request does not read them from
// Redis: a key's first request reads them (alongside its reservation, not after it), and later ones take the
// cached answer, refreshed in the background once it is older than FRESH_MS. A change made with the CLI, the
// admin API or the dashboard therefore reaches every replica within FRESH_MS plus a round trip; docs say so.
// A read that fails leaves the request the defaults (weight 1, no priority, queue.maxWaitMs): fair sharing
// never refuses a request it could forward.

import { LRUCache } from "lru-cache";
import type { KeyRef } from "../../core/key-ref.js";
import { type RequestSharing, requestSharing, type SharingFields } from "../../core/sharing.js";

/** How long a key's settings are used before they are read again (in the background). */
export const FRESH_MS = 5000;

interface Cached {
  sharing: RequestSharing;
  readAt: number;
  refreshing: boolean;
}

export interface SharingCacheDeps {
  store: { read(ref: KeyRef): Promise<SharingFields> };
  /** queue.maxWaitMs: the longest wait when the account and the key set none shorter. */
  maxWaitMs: number;
  /** Wall clock (ms). */
  now(): number;
  onError(error: unknown): void;
  maxKeys?: number;
}

export class SharingCache {
  private readonly cache: LRUCache<string, Cached>;
  private readonly loading = new Map<string, Promise<RequestSharing>>();
  private readonly defaults: RequestSharing;

  constructor(private readonly deps: SharingCacheDeps) {
    this.cache = new LRUCache({ max: deps.maxKeys ?? 100_000 });
    this.defaults = Object.freeze({ weight: 1, priority: null, maxWaitMs: deps.maxWaitMs });
  }

  /** The key's settings: at once when cached (refreshed behind the scenes when old), else once read. */
  get(ref: KeyRef): RequestSharing | Promise<RequestSharing> {
    const id = `${ref.accountId}\n${ref.keyId}`;
    const cached = this.cache.get(id);
    if (cached === undefined) return this.load(ref, id);
    if (!cached.refreshing && this.deps.now() - cached.readAt >= FRESH_MS) {
      cached.refreshing = true;
      void this.load(ref, id).finally(() => {
        cached.refreshing = false;
      });
    }
    return cached.sharing;
  }

  private load(ref: KeyRef, id: string): Promise<RequestSharing> {
    let loading = this.loading.get(id);
    if (loading !== undefined) return loading;
    loading = this.deps.store.read(ref).then(
      (fields) => {
        const sharing = requestSharing(fields, this.deps.maxWaitMs);
        this.cache.set(id, { sharing, readAt: this.deps.now(), refreshing: false });
        return sharing;
      },
      (error: unknown) => {
        this.deps.onError(error);
        return this.cache.get(id)?.sharing ?? this.defaults;
      },
    );
    const settled = loading.finally(() => this.loading.delete(id));
    this.loading.set(id, settled);
    return settled;
  }
}
