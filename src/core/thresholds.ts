// A key's budget alert thresholds: whole percents of its budget, from 1 to 100, at which budget.threshold is
// announced once per period. Pure functions, shared by the services, the CLI and the dashboard's forms, so
// that all refuse the same input with the same words.

export const MIN_THRESHOLD = 1;
export const MAX_THRESHOLD = 100;
export const MAX_THRESHOLDS = 10;

/** The thresholds, ascending and without repeats, or null when they are not whole percents from 1 to 100. */
export function readThresholds(values: readonly unknown[]): number[] | null {
  const percents = new Set<number>();
  for (const value of values) {
    const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (!Number.isInteger(number)) return null;
    const percent = number as number;
    if (percent < MIN_THRESHOLD || percent > MAX_THRESHOLD) return null;
    percents.add(percent);
  }
  if (percents.size > MAX_THRESHOLDS) return null;
  return [...percents].sort((a, b) => a - b);
}

/** "50, 80,100" as the CLI and the dashboard take them; "" for none. */
export function readThresholdList(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter((part) => part !== "");
  return readThresholds(parts);
}

export const THRESHOLDS_RULE = `whole percents of the budget from ${MIN_THRESHOLD} to ${MAX_THRESHOLD}, at most ${MAX_THRESHOLDS}, such as 50,80,100`;
