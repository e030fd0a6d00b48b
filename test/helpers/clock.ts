// A clock the tests move by hand, so that expiry and period boundaries are tested without sleeping.

export class TestClock {
  constructor(public ms: number = Date.parse("2026-11-21T10:00:00.000Z")) {}

  readonly now = (): number => this.ms;

  set(iso: string): void {
    this.ms = Date.parse(iso);
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * The wall clock, for tests where a gateway process (which always runs on real time) shares Redis with an
 * in-process gateway: reservations' expiry is judged by each gateway's clock, so the two must agree.
 */
export class RealClock extends TestClock {
  override readonly now = (): number => Date.now();
}
