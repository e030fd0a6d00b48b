// Runs a real gateway in the test process: real HTTP listener, the suite's redis-server under a prefix of
// the test's own, a stub upstream, an injectable clock, and the log lines captured for inspection.

import { inject } from "vitest";
import { type Config, type ConfigInput, configSchema } from "../../src/config/schema.js";
import type { Gateway } from "../../src/gateway/gateway-handle.js";
import { startGateway } from "../../src/gateway.js";
import { createLogger } from "../../src/observability/logger.js";
import { ACTOR } from "./actor.js";
import { TestClock } from "./clock.js";
import { openStore, type TestStore, testPrefix } from "./store.js";

/** Prices of 1 ₽ per 1000 prompt tokens and 2 ₽ per 1000 completion tokens make costs easy to read. */
export const PRICING = { default: { input: 1000, output: 2000, maxOutputTokens: 100 } };

export interface TestGateway {
  gateway: Gateway;
  url: string;
  config: Config;
  store: TestStore;
  clock: TestClock;
  logs: Record<string, unknown>[];
  /** Creates an account with `balance` rubles and a key on it; returns the key value and id. */
  newKey(options?: KeyOptions): Promise<{ value: string; id: string; accountId: string }>;
  fetch(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  close(): Promise<void>;
}

export interface KeyOptions {
  accountId?: string;
  balance?: string;
  budget?: string;
  period?: string;
  /** Several budget windows, "100/day" each. */
  budgets?: string[];
  ttl?: string;
  models?: string[];
  logBodies?: boolean;
  rpm?: number;
  tpm?: number;
  maxParallel?: number;
}

/** A response body as JSON, loosely typed for assertions. */
export async function json(res: Response): Promise<any> {
  return res.json();
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

export async function startTestGateway(
  options: {
    config?: DeepPartial<ConfigInput>;
    clock?: TestClock;
    upstreamUrl?: string;
    /** The environment the gateway reads the operator's webhook secrets from. */
    env?: Record<string, string>;
  } = {},
): Promise<TestGateway> {
  const clock = options.clock ?? new TestClock();
  const input = options.config ?? {};
  // A second replica shares the first one's data by being given its prefix.
  const prefix = input.redis?.prefix ?? testPrefix();
  const config = configSchema.parse({
    ...input,
    listen: { host: "127.0.0.1", port: 0, ...input.listen },
    upstream: { url: options.upstreamUrl ?? "http://127.0.0.1:9", ...input.upstream },
    // The suite's redis-server persists nothing: it is thrown away with the run.
    redis: { url: inject("redisUrl"), prefix, allowNoPersistence: true, ...input.redis },
    metrics: { host: "127.0.0.1", port: 0, ...input.metrics },
    admin: { host: "127.0.0.1", port: 0, ...input.admin },
    logging: { level: "info", ...input.logging },
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("info", { write: (line: string) => void logs.push(JSON.parse(line)) });
  const gateway = await startGateway({ config, now: clock.now, logger, env: options.env ?? {} });
  // The gateway connects to Redis in the background and checks it (answering 503 until then); tests start
  // once it serves.
  const refusal = await Promise.race([gateway.serving, gateway.refused]);
  if (refusal) {
    await gateway.close(0);
    throw refusal;
  }
  const store = await openStore({ clock, prefix, timezone: config.billing.timezone, redis: config.redis });
  const accountsMade = new Set<string>();

  return {
    gateway,
    url: gateway.url,
    config,
    store,
    clock,
    logs,
    async newKey(keyOptions = {}) {
      const accountId = keyOptions.accountId ?? "acme";
      if (!accountsMade.has(accountId) && !(await store.accounts.get(accountId))) {
        await store.accountService.create({ id: accountId, balance: keyOptions.balance ?? "1000" }, ACTOR);
      }
      accountsMade.add(accountId);
      const { record, value } = await store.keyService.create(
        {
          accountId,
          name: "test key",
          budget: keyOptions.budget,
          period: keyOptions.period,
          budgets: keyOptions.budgets,
          ttl: keyOptions.ttl,
          models: keyOptions.models,
          logBodies: keyOptions.logBodies,
          rpm: keyOptions.rpm,
          tpm: keyOptions.tpm,
          maxParallel: keyOptions.maxParallel,
        },
        ACTOR,
      );
      return { value, id: record.id, accountId };
    },
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key !== undefined) headers.set("authorization", `Bearer ${init.key}`);
      return fetch(gateway.url + path, { ...init, headers });
    },
    async close() {
      await gateway.close();
      store.close();
    },
  };
}
