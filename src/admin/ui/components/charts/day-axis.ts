// The x axis of the daily charts, decided here rather than left to uPlot: uPlot's own choice had the range
// of a single day collapse (the bar pushed to the left edge, no label), and could leave the last day — today —
// without a label or cut its bar. The range is every day of the data with half a day of room on each side,
// and the labelled days are counted back from the last one, as many as fit.

const DAY = 86_400;

/** The x range (seconds) for days from `first` to `last` (UTC midnights): half a day beyond each. */
export function dayRange(first: number, last: number): [number, number] {
  return [first - DAY / 2, last + DAY / 2];
}

/**
 * The days to label (seconds), oldest first: the last day always, then every `step`-th day before it, `step`
 * the smallest whole number of days that leaves each label `space` pixels of the `width` available.
 */
export function daySplits(first: number, last: number, width: number, space: number): number[] {
  const days = Math.round((last - first) / DAY) + 1;
  const fit = Math.max(1, Math.floor(width / space));
  const step = Math.max(1, Math.ceil(days / fit));
  const splits: number[] = [];
  for (let day = last; day >= first; day -= step * DAY) splits.unshift(day);
  return splits;
}
