// Timers on a clock the test moves by hand: for parts that take an `after(ms, run)` and a clock, so that
// waits and expiries are tested without sleeping.

interface Timer {
  at: number;
  run: () => void;
  order: number;
}

export class ManualTimers {
  ms = 0;
  private readonly pending = new Set<Timer>();
  private order = 0;

  readonly now = (): number => this.ms;

  readonly after = (ms: number, run: () => void): { cancel(): void } => {
    const timer = { at: this.ms + ms, run, order: this.order++ };
    this.pending.add(timer);
    return { cancel: () => this.pending.delete(timer) };
  };

  /** Moves the clock on by `ms`, running every timer due on the way, in order. */
  advance(ms: number): void {
    const until = this.ms + ms;
    for (;;) {
      let due: Timer | undefined;
      for (const timer of this.pending) {
        if (timer.at > until) continue;
        if (due === undefined || timer.at < due.at || (timer.at === due.at && timer.order < due.order))
          due = timer;
      }
      if (due === undefined) break;
      this.pending.delete(due);
      this.ms = due.at;
      due.run();
    }
    this.ms = until;
  }

  /** Timers not yet run. */
  get size(): number {
    return this.pending.size;
  }
}
