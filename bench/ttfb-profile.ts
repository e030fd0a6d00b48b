// Where the main thread's time goes between the moments bench/ttfb-hook.mjs records, from a V8 CPU profile
// (--cpu-prof) of the same process: each sample that falls between two of one request's moments counts for
// that interval, by who was running — idle (waiting in the event loop), garbage collection, V8 and Node
// outside JavaScript, or the JavaScript frame nearest the top of the stack (a native call counts for its
// caller), by file. Used by bench/ttfb-stages.ts with TTFB_CPU_PROF.

import { readFileSync } from "node:fs";
import type { CpuProfile } from "./profile-breakdown.js";

interface TimedProfile extends CpuProfile {
  /** Microseconds, on the monotonic clock the hook's `hr` reads. */
  startTime: number;
}

/** One request's moments as the hook wrote them: `hr` its arrival (µs, monotonic), the rest µs after it. */
export type Moments = Record<string, number>;

/** Per interval ("from → to"), µs per request (of those that had it) by who ran. */
export interface IntervalTime {
  interval: string;
  perRequest: number;
  by: [string, number][];
}

/** Who a frame is: V8's own frames by name, our files and Node's modules by path, packages by name. */
function who(frame: { functionName: string; url: string }): string | null {
  if (frame.functionName.startsWith("(")) return frame.functionName;
  const { url } = frame;
  if (url === "") return null;
  const modules = url.lastIndexOf("/node_modules/");
  if (modules !== -1) return url.slice(modules + "/node_modules/".length).split("/")[0] as string;
  if (url.startsWith("node:")) return url;
  const dist = url.lastIndexOf("/dist/");
  if (dist !== -1) return url.slice(dist + "/dist/".length);
  return url.slice(url.lastIndexOf("/") + 1);
}

/**
 * Sums the samples of `profileFile` that fall between consecutive `boundaries` of each request of `records`
 * (the boundaries a request lacks are skipped), per request that had the interval.
 */
export function timeBetween(profileFile: string, records: Moments[], boundaries: string[]): IntervalTime[] {
  const profile = JSON.parse(readFileSync(profileFile, "utf8")) as TimedProfile;
  const parent = new Map<number, number>();
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The sample's owner: the nearest frame, from the top of the stack, that names one.
  const ownerOf = new Map<number, string>();
  const owner = (id: number): string => {
    const known = ownerOf.get(id);
    if (known !== undefined) return known;
    let found: string | null = null;
    for (let at: number | undefined = id; at !== undefined && found === null; at = parent.get(at))
      found = who((nodes.get(at) as CpuProfile["nodes"][number]).callFrame);
    ownerOf.set(id, found ?? "(native)");
    return found ?? "(native)";
  };
  // Each sample's moment, and the time it stands for (the gap to the next one).
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) {
    t += delta;
    times.push(t);
  }
  const sums = new Map<string, Map<string, number>>();
  /** How many requests had each interval. */
  const counted = new Map<string, number>();
  for (const record of records) {
    const at = record.hr as number;
    const present = boundaries.filter((b) => b === "arrival" || record[b] !== undefined);
    if (present.length < 2) continue;
    const moment = (b: string) => at + (b === "arrival" ? 0 : (record[b] as number));
    // Samples are few per request: a binary search for the first, then walk.
    let i = lowerBound(times, moment(present[0] as string));
    for (let k = 1; k < present.length; k++) {
      const from = present[k - 1] as string;
      const to = present[k] as string;
      const interval = `${from} → ${to}`;
      const by = sums.get(interval) ?? new Map<string, number>();
      sums.set(interval, by);
      counted.set(interval, (counted.get(interval) ?? 0) + 1);
      for (; i < times.length - 1 && (times[i] as number) < moment(to); i++) {
        const name = owner(profile.samples[i] as number);
        by.set(name, (by.get(name) ?? 0) + ((times[i + 1] as number) - (times[i] as number)));
      }
    }
  }
  return [...sums].map(([interval, by]) => {
    const requests = counted.get(interval) as number;
    const entries = [...by].map(([name, us]): [string, number] => [name, us / requests]);
    entries.sort((a, b) => b[1] - a[1]);
    return { interval, perRequest: entries.reduce((s, [, us]) => s + us, 0), by: entries };
  });
}

function lowerBound(values: number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
