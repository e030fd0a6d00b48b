// `npm run demo`: a throwaway, self-contained tunnel-gateway to try on one machine. It starts its own
// redis-server on a free port (persistence off), the demo model server, a demo account and key, and the
// gateway, prints curl commands to paste, and stops everything it started on Ctrl-C. Nothing persists.

import { configSchema } from "../config/schema.js";
import { startGateway } from "../gateway.js";
import { createLogger } from "../observability/logger.js";
import { AccountService } from "../services/accounts.js";
import { buildServiceContext } from "../services/context.js";
import { KeyService } from "../services/keys.js";
import type { Actor } from "../store/audit-store.js";
import { closeRedis, connectRedis, createRedis } from "../store/redis.js";
import { startDemoUpstream } from "./demo-upstream.js";
import { isPortFree } from "./ports.js";
import { startRedisServer } from "./redis-server.js";

const redis = await startRedisServer();
const upstream = await startDemoUpstream(0, "127.0.0.1", { tokenIntervalMs: 40 });
const port = (await isPortFree(8080)) ? 8080 : 0;
const metricsPort = (await isPortFree(9464)) ? 9464 : 0;
const config = configSchema.parse({
  listen: { host: "127.0.0.1", port },
  metrics: { host: "127.0.0.1", port: metricsPort },
  upstream: { url: upstream.url },
  // The demo's Redis persists nothing, on purpose: everything goes when the demo stops.
  redis: { url: redis.url, prefix: "demo:", allowNoPersistence: true },
  pricing: { default: { input: 50, output: 150 } },
});
const gateway = await startGateway({ config, logger: createLogger("info") });
// The commands printed below work once the gateway has connected to its Redis and checked it.
const refusal = await Promise.race([gateway.serving, gateway.refused]);
if (refusal) throw refusal;

const admin = createRedis(config.redis, "cli");
await connectRedis(admin, config.redis);
const context = buildServiceContext(admin, {
  prefix: config.redis.prefix,
  timezone: config.billing.timezone,
});
const demo: Actor = { kind: "cli" };
await new AccountService(context).create({ id: "demo", name: "Demo account", balance: "1000" }, demo);
const { value: key } = await new KeyService(context).create(
  { accountId: "demo", name: "demo key", budget: "100", period: "day", ttl: "1d" },
  demo,
);
closeRedis(admin);

const url = gateway.url;
process.stderr.write(`
================================  DEMO  ================================
tunnel-gateway demo: a throwaway Redis (${redis.url}, nothing is saved)
and a fake model server (${upstream.url}) behind the gateway at ${url}.
Account "demo" holds 1000 RUB; its key has a budget of 100 RUB a day.

  export KEY=${key}

  curl -s ${url}/v1/key -H "Authorization: Bearer $KEY"
  curl -s ${url}/v1/balance -H "Authorization: Bearer $KEY"
  curl -sN ${url}/v1/chat/completions -H "Authorization: Bearer $KEY" \\
    -H "Content-Type: application/json" \\
    -d '{"model":"demo-small","stream":true,"messages":[{"role":"user","content":"hello"}]}'

Prometheus metrics: ${gateway.metricsUrl}/metrics

Request log lines follow below. Ctrl-C stops the gateway, the model server
and the Redis it started.
========================================================================
`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write("\nstopping the demo…\n");
  await gateway.close();
  await upstream.close();
  await redis.stop();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
