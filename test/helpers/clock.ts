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
