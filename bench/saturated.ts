// The saturated scenario of `npm run bench`: one model server that runs at most CAPACITY requests at once
// (busy-upstream.ts), a noisy account keeping twenty times its share of the server's places busy and a quiet
// account sending a steady trickle at half its share, through a gateway with fair sharing
// (upstream.maxInFlight = CAPACITY) and through one without (the server's own queue, first come, first served).
// Each account's time to first byte, p50 and p99, is what a team sees of the server's fullness.

import { request } from "undici";
import { percentile, SMALL_REQUEST } from "./load.js";

export interface SaturatedShape {
  capacity: number;
  serviceMs: number;
  seconds: number;
  /** The quiet account sends one request this often (ms). */
  quietIntervalMs: number;
}

export interface AccountFigures {
  /** Time to first byte, ms. */
  p50: number;
  p99: number;
  requests: number;
}

export interface SaturatedPath {
  noisy: AccountFigures;
  quiet: AccountFigures;
}

export interface SaturatedFigures extends SaturatedShape {
  rounds: number;
  /** The noisy account's requests kept in flight. */
  noisyConcurrency: number;
  fair: SaturatedPath;
  firstCome: SaturatedPath;
}

async function timeToFirstByte(url: string, key: string): Promise<number | null> {
  const started = performance.now();
  const { statusCode, body } = await request(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: SMALL_REQUEST,
  });
  const at = performance.now();
  await body.dump();
  return statusCode === 200 ? at - started : null;
}

/** One run of the scenario against one gateway: each account's times to first byte. */
export async function measureSaturated(
  url: string,
  keys: { noisy: string; quiet: string },
  shape: SaturatedShape,
): Promise<{ noisy: number[]; quiet: number[] }> {
  const noisy: number[] = [];
  const quiet: number[] = [];
  const until = performance.now() + shape.seconds * 1000;
  const flood = Array.from({ length: noisyConcurrency(shape) }, async () => {
    while (performance.now() < until) {
      const ttfb = await timeToFirstByte(url, keys.noisy);
      if (ttfb !== null) noisy.push(ttfb);
    }
  });
  // The quiet account starts once the noisy one has filled the server.
  await new Promise((resolve) => setTimeout(resolve, shape.serviceMs * 2));
  const trickle: Promise<void>[] = [];
  while (performance.now() < until) {
    trickle.push(
      timeToFirstByte(url, keys.quiet).then((ttfb) => {
        if (ttfb !== null) quiet.push(ttfb);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, shape.quietIntervalMs));
  }
  await Promise.all([...flood, ...trickle]);
  return { noisy, quiet };
}

/** Twenty times the noisy account's share of the places (half of them, beside the quiet account). */
export function noisyConcurrency(shape: SaturatedShape): number {
  return 20 * Math.max(1, Math.floor(shape.capacity / 2));
}

/** The scenario's figures from every round's times, pooled. */
export function saturatedFigures(
  shape: SaturatedShape,
  rounds: number,
  runs: { fair: { noisy: number[]; quiet: number[] }[]; firstCome: { noisy: number[]; quiet: number[] }[] },
): SaturatedFigures {
  const account = (times: number[]): AccountFigures => ({
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    requests: times.length,
  });
  const path = (all: { noisy: number[]; quiet: number[] }[]): SaturatedPath => ({
    noisy: account(all.flatMap((run) => run.noisy)),
    quiet: account(all.flatMap((run) => run.quiet)),
  });
  return {
    ...shape,
    rounds,
    noisyConcurrency: noisyConcurrency(shape),
    fair: path(runs.fair),
    firstCome: path(runs.firstCome),
  };
}
