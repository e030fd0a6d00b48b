// `npm run demo`: a throwaway, self-contained tunnel-gateway to try on one machine. It starts its own
// redis-server on a free port (persistence off), the demo model server, a demo account and key, its people —
// an owner who is also an operator, with a generated password, and a viewer — and the gateway with its admin
// API, dashboard and password sign-in; prints the prices it charges, curl commands to paste, the dashboard's
// address with the owner's e-mail and password (shown this once), and for automation a one-time operator
// token and the demo account's token; and stops everything it started on Ctrl-C. Nothing persists.

import { randomToken } from "../auth/api-key.js";
import { costOf, Pricing } from "../billing/pricing.js";
import { configSchema } from "../config/schema.js";
import { formatRubles } from "../core/money.js";
import type { Gateway } from "../gateway/gateway-handle.js";
import { startGateway } from "../gateway.js";
import { buildIdentity } from "../identity/identity.js";
import { identitySettings } from "../identity/settings.js";
import { createLogger } from "../observability/logger.js";
import { AccountService } from "../services/accounts.js";
import { KeyService } from "../services/keys.js";
import type { Actor } from "../store/audit/audit-store.js";
import { closeRedis, connectRedis, createRedis } from "../store/connection/redis.js";
import { openStores } from "../store/stores.js";
import { type DemoUpstream, startDemoUpstream } from "./demo-upstream.js";
import { isPortFree } from "./ports.js";
import { type RedisServer, startRedisServer } from "./redis-server.js";

const DEMO: Actor = { kind: "cli" };
const OWNER_EMAIL = "owner@demo.example";

/** The familiar port when it is free, any free one otherwise. */
async function portOr(preferred: number): Promise<number> {
  return (await isPortFree(preferred)) ? preferred : 0;
}

let redis: RedisServer | undefined;
let upstream: DemoUpstream | undefined;
let gateway: Gateway | undefined;
let stopping = false;

/** Stops what has been started, in reverse order. */
async function stopAll(): Promise<void> {
  await gateway?.close();
  await upstream?.close();
  await redis?.stop();
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write("\nstopping the demo…\n");
  await stopAll();
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

try {
  redis = await startRedisServer();
  upstream = await startDemoUpstream(0, "127.0.0.1", { tokenIntervalMs: 40 });
  // The operator's token of this run only: whoever holds it sees and changes every account.
  const adminToken = randomToken(32);
  const config = configSchema.parse({
    listen: { host: "127.0.0.1", port: await portOr(8080) },
    metrics: { host: "127.0.0.1", port: await portOr(9464) },
    admin: { host: "127.0.0.1", port: await portOr(8081), token: adminToken },
    upstream: { url: upstream.url },
    // The demo's Redis persists nothing, on purpose: everything goes when the demo stops.
    redis: { url: redis.url, prefix: "demo:", allowNoPersistence: true },
    pricing: { default: { input: 50, output: 150 } },
    // People sign in with a password here, so that the first thing a newcomer sees is people and roles.
    signIn: { local: { enabled: true } },
  });
  gateway = await startGateway({ config, logger: createLogger("info") });
  // The commands printed below work once the gateway has connected to its Redis and checked it.
  const refusal = await Promise.race([gateway.serving, gateway.refused]);
  if (refusal) throw refusal;

  const admin = createRedis(config.redis, "cli");
  await connectRedis(admin, config.redis);
  const stores = openStores(admin, {
    prefix: config.redis.prefix,
    timezone: config.billing.timezone,
  });
  const accounts = new AccountService(stores);
  await accounts.create({ id: "demo", name: "Demo account", balance: "1000" }, DEMO);
  const { token: accountToken } = await accounts.createToken("demo", DEMO);
  const { value: key } = await new KeyService(stores).create(
    { accountId: "demo", name: "demo key", budget: "100", period: "day", ttl: "1d" },
    DEMO,
  );
  const { users } = buildIdentity(stores, identitySettings(config), { logger: createLogger("silent") });
  // Generated for this run and printed once: long and random, so no password rule refuses it.
  const ownerPassword = randomToken(24);
  await users.create(
    {
      email: OWNER_EMAIL,
      name: "Demo Owner",
      operatorRole: "operator",
      password: ownerPassword,
      account: { accountId: "demo", role: "owner" },
    },
    DEMO,
  );
  await users.create(
    { email: "viewer@demo.example", name: "Vera Viewer", account: { accountId: "demo", role: "viewer" } },
    DEMO,
  );
  closeRedis(admin);

  const price = new Pricing(config.pricing).priceFor(null);
  const outputCapHold = costOf({ promptTokens: 0, completionTokens: price.maxOutputTokens }, price);
  const url = gateway.url;
  const dashboard = `${gateway.adminUrl}/`;
  process.stderr.write(`
================================  DEMO  ================================
tunnel-gateway demo: a throwaway Redis (${redis.url}, nothing is saved)
and a fake model server (${upstream.url}) behind the gateway at ${url}.
Account "demo" holds 1000 RUB; its key has a budget of 100 RUB a day.

Prices, per million tokens: ${formatRubles(price.input)} RUB input, ${formatRubles(price.output)} RUB output. A request
without max_tokens is held at ${price.maxOutputTokens} output tokens (${formatRubles(outputCapHold)} RUB) until
it is billed for the tokens it used.

  export KEY=${key}

  curl -s ${url}/v1/key -H "Authorization: Bearer $KEY"
  curl -s ${url}/v1/balance -H "Authorization: Bearer $KEY"
  curl -sN ${url}/v1/chat/completions -H "Authorization: Bearer $KEY" \\
    -H "Content-Type: application/json" \\
    -d '{"model":"demo-small","stream":true,"messages":[{"role":"user","content":"hello"}]}'

Dashboard: ${dashboard}
  sign in as the demo's owner, an operator too (people, roles, every account):
    e-mail    ${OWNER_EMAIL}
    password  ${ownerPassword}
  (made for this run, shown this once). Members: the account's people and
  their roles; People: everyone.

For automation, the admin API takes this run's admin token (an operator):
    ${adminToken}
  or the demo account's own token (its keys only):
    ${accountToken}
    curl -s ${gateway.adminUrl}/admin/v1/accounts -H "Authorization: Bearer ${adminToken}"

Prometheus metrics: ${gateway.metricsUrl}/metrics

Request log lines follow below. Ctrl-C stops the gateway, the model server
and the Redis it started.
========================================================================
`);
} catch (error) {
  process.stderr.write(`the demo could not start: ${error instanceof Error ? error.message : error}\n`);
  await stopAll();
  process.exit(1);
}
