// How fast requests leave for the model server, measured: places given over the last ten seconds, from
// which a refused request's Retry-After is worked out (upstream-gate.ts). Pure: the caller passes the time.

/** The window the rate is measured over, in buckets of BUCKET_MS. */
const BUCKET_MS = 250;
const BUCKETS = 40;
export const DRAIN_WINDOW_MS = BUCKET_MS * BUCKETS;

export class DrainRate {
  private readonly counts = new Uint32Array(BUCKETS);
  /** The bucket (time / BUCKET_MS) each slot of `counts` last counted. */
  private readonly stamps = new Float64Array(BUCKETS).fill(-1);
  private firstAt = -1;

  /** A request was given its place at `now` (ms). */
  record(now: number): void {
    if (this.firstAt < 0) this.firstAt = now;
    const bucket = Math.floor(now / BUCKET_MS);
    const slot = bucket % BUCKETS;
    if (this.stamps[slot] !== bucket) {
      this.stamps[slot] = bucket;
      this.counts[slot] = 0;
    }
    this.counts[slot] = (this.counts[slot] as number) + 1;
  }

  /**
   * Places given per second over the window; until the window has passed since the first, the gaps between
   * them over the time since the first (n places given so far are n - 1 gaps). Null before there is a gap to
   * measure. A rate measured over less than a second counts as measured over one: a burst at start-up is no
   * rate to promise anything on.
   */
  perSecond(now: number): number | null {
    if (this.firstAt < 0) return null;
    const bucket = Math.floor(now / BUCKET_MS);
    let count = 0;
    for (let slot = 0; slot < BUCKETS; slot++) {
      const stamp = this.stamps[slot] as number;
      if (stamp > bucket - BUCKETS && stamp <= bucket) count += this.counts[slot] as number;
    }
    const since = now - this.firstAt;
    const gaps = since >= DRAIN_WINDOW_MS ? count : count - 1;
    if (gaps <= 0) return since >= DRAIN_WINDOW_MS ? 0 : null;
    return (gaps * 1000) / Math.max(1000, Math.min(DRAIN_WINDOW_MS, since));
  }
}
