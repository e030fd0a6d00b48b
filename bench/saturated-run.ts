// The saturated scenario's run (saturated.ts measures one path): its own model server and two gateways, fair
// sharing on and off, started for it and stopped after it, in interleaved rounds. Used by `npm run bench`.

import { freePort } from "../src/demo/redis-server.js";
import {
  measureSaturated,
  type SaturatedFigures,
  type SaturatedShape,
  saturatedFigures,
} from "./saturated.js";
import { createSaturatedKeys, forkServer, spawnGateway } from "./servers.js";

/**
 * The saturated scenario: its own model server and two gateways (fair sharing on and off), started for it and
 * stopped after it, measured in interleaved rounds.
 */
export async function measureSaturatedScenario(
  redisUrl: string,
  SATURATED: SaturatedShape,
  SATURATED_ROUNDS: number,
): Promise<SaturatedFigures> {
  const [busyPort, fairPort, firstComePort] = [await freePort(), await freePort(), await freePort()];
  const busy = await forkServer("busy-upstream.ts", [
    String(busyPort),
    String(SATURATED.capacity),
    String(SATURATED.serviceMs),
  ]);
  const options = { redisUrl, upstream: `http://127.0.0.1:${busyPort}`, metricsEnabled: true };
  const fair = await spawnGateway({
    ...options,
    port: fairPort,
    config: { upstream: { maxInFlight: SATURATED.capacity } },
  });
  const firstCome = await spawnGateway({ ...options, port: firstComePort });
  const keys = await createSaturatedKeys(redisUrl);
  type Run = Awaited<ReturnType<typeof measureSaturated>>;
  const runs = {
    fair: [] as Run[],
    firstCome: [] as Run[],
  };
  const paths = [
    ["fair", `http://127.0.0.1:${fairPort}`],
    ["firstCome", `http://127.0.0.1:${firstComePort}`],
  ] as const;
  for (let round = 1; round <= SATURATED_ROUNDS; round++) {
    process.stderr.write(`saturated round ${round}/${SATURATED_ROUNDS}\n`);
    for (const [name, url] of round % 2 === 0 ? [...paths].reverse() : paths) {
      runs[name].push(await measureSaturated(url, keys, SATURATED));
    }
  }
  for (const child of [busy, fair, firstCome]) child.kill("SIGTERM");
  return saturatedFigures(SATURATED, SATURATED_ROUNDS, runs);
}
