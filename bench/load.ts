// Load generation for the benchmark, on undici (the HTTP client Node's own fetch is built on):
//   fixedRate — open loop: requests leave on a fixed schedule whatever the responses do (a slow server
//               cannot slow the sender down), each latency measured from its request's send;
//   saturate  — closed loop: a fixed number of workers send back to back, for maximum throughput;
//   firstByte — one streamed request at a time, time to the first byte of the body.

import { Pool } from "undici";

/** The benchmarks' small request: a non-streamed chat completion of at most 16 tokens. */
export const SMALL_REQUEST = JSON.stringify({
  model: "demo-small",
  max_tokens: 16,
  messages: [{ role: "user", content: "Say something short." }],
});

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const PATH = "/v1/chat/completions";

function pool(target: Target, connections: number): Pool {
  return new Pool(target.url, { connections, pipelining: 1 });
}

async function send(client: Pool, target: Target, body: string): Promise<void> {
  const { statusCode, body: response } = await client.request({
    path: PATH,
    method: "POST",
    headers: { ...target.headers, "content-type": "application/json" },
    body,
  });
  await response.dump();
  if (statusCode !== 200) throw new Error(`${target.name} answered ${statusCode}`);
}

export async function fixedRate(
  target: Target,
  body: string,
  rate: number,
  seconds: number,
): Promise<number[]> {
  const client = pool(target, 128);
  const total = rate * seconds;
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    // Send everything that is due (timers fire late by up to a millisecond), then sleep until the next.
    while (sent < total && start + sent * interval <= performance.now()) {
      const sentAt = performance.now();
      inflight.push(send(client, target, body).then(() => void latencies.push(performance.now() - sentAt)));
      sent++;
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, start + sent * interval - performance.now())),
    );
  }
  await Promise.all(inflight);
  await client.close();
  return latencies;
}

export async function saturate(
  target: Target,
  body: string,
  workers: number,
  seconds: number,
): Promise<number> {
  const client = pool(target, workers);
  const until = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        await send(client, target, body);
        done++;
      }
    }),
  );
  await client.close();
  return done / seconds;
}

export async function firstByte(target: Target, body: string, samples: number): Promise<number[]> {
  const client = pool(target, 1);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const { body: response } = await client.request({
      path: PATH,
      method: "POST",
      headers: { ...target.headers, "content-type": "application/json" },
      body,
    });
    for await (const _chunk of response) {
      times.push(performance.now() - started);
      break;
    }
    await response.dump().catch(() => {});
  }
  await client.close();
  return times;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

export function median(values: number[]): number {
  return percentile(values, 0.5);
}
