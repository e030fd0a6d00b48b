// Bounded label sets: clients choose model names, and there may be a million keys, but a scrape must stay
// small. A cap admits up to `max` distinct values; later ones fold into "other".

/** The label value series beyond a cap fold into. */
export const OTHER = "other";

/** Values once admitted stay admitted, so a series never flips between its own name and "other". */
export class SeriesCap {
  private readonly admitted = new Set<string>();

  constructor(private readonly max: number) {}

  label(value: string): string {
    if (this.admitted.has(value)) return value;
    if (this.admitted.size >= this.max) return OTHER;
    this.admitted.add(value);
    return value;
  }
}
