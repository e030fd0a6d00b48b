// Where Redis' CPU per request goes in the running gateway: the gateway as the README starts it, a Redis with
// append-only persistence on (as `npm run bench` runs it), 500 small requests/s for BENCH_SECONDS (10) on the
// leased key and then on the key that reserves per request, and per request the Redis process' CPU (/proc)
// beside INFO commandstats' calls and time by command. Script time (evalsha) includes the redis.calls the
// script makes, which commandstats also counts under their own names: the two are not to be added up.
// `npm run build && npx tsx bench/redis-commands.ts`; what it found is in docs/benchmarks.md.

import { Redis } from "ioredis";
import { freePort, startRedisServer } from "../src/demo/redis-server.js";
import { fixedRate, SMALL_REQUEST } from "./load.js";
import { children, cpuMicros, createBenchKeys, forkServer } from "./servers.js";
import { startAsUsersDo } from "./user-gateway.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = 500;

const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
children.push(redis.process);
const [upstreamPort, gatewayPort] = [await freePort(), await freePort()];
await forkServer("upstream.ts", [String(upstreamPort)]);
const gateway = await startAsUsersDo({
  redisUrl: redis.url,
  upstream: `http://127.0.0.1:${upstreamPort}`,
  startedAs: "readme",
  port: gatewayPort,
});
const { key, limitedKey } = await createBenchKeys(redis.url, "tg:");
const client = new Redis(redis.url);

/** Calls and microseconds by command, from INFO commandstats. */
async function commandStats(): Promise<Map<string, { calls: number; usec: number }>> {
  const info = await client.info("commandstats");
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const [, name, calls, usec] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats.set(name as string, { calls: Number(calls), usec: Number(usec) });
  }
  return stats;
}

for (const [label, bearer] of [
  ["leased key", key],
  ["key that reserves per request", limitedKey],
] as const) {
  const target = {
    name: label,
    url: `http://127.0.0.1:${gatewayPort}`,
    headers: { authorization: `Bearer ${bearer}` },
  };
  await fixedRate(target, SMALL_REQUEST, RATE, 3); // warm-up: connections, JIT, the key in the cache, the lease
  const [before, redisBefore] = [await commandStats(), cpuMicros(redis.process)];
  const gatewayBefore = gateway.processes.reduce((sum, p) => sum + cpuMicros(p), 0);
  const requests = (await fixedRate(target, SMALL_REQUEST, RATE, SECONDS)).length;
  const redisCpu = (cpuMicros(redis.process) - redisBefore) / requests;
  const gatewayCpu = (gateway.processes.reduce((sum, p) => sum + cpuMicros(p), 0) - gatewayBefore) / requests;
  const after = await commandStats();
  console.log(
    `\n${label}, ${requests} requests: CPU per request, Redis ${redisCpu.toFixed(0)} µs, gateway ${gatewayCpu.toFixed(0)} µs`,
  );
  console.log("| command | calls per request | µs per request | µs per call |\n| --- | --- | --- | --- |");
  for (const [name, now] of after) {
    const was = before.get(name) ?? { calls: 0, usec: 0 };
    const calls = now.calls - was.calls;
    if (calls === 0 || name === "info") continue;
    const usec = now.usec - was.usec;
    console.log(
      `| ${name} | ${(calls / requests).toFixed(3)} | ${(usec / requests).toFixed(1)} | ${(usec / calls).toFixed(1)} |`,
    );
  }
}
client.disconnect();
for (const child of children) child.kill("SIGTERM");
await redis.stop();
process.exit(0);
