// What a management command needs: the configuration (file, environment, --redis) and a Redis
// connection with the service layer on top, closed when the command is done.

import { loadConfig, type Override } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { AccountService } from "../services/accounts.js";
import { buildServiceContext, type ServiceContext } from "../services/context.js";
import { KeyService } from "../services/keys.js";
import { closeRedis, connectRedis, createRedis } from "../store/redis.js";

export interface CommonOptions {
  config?: string;
  redis?: string;
  json?: boolean;
}

export interface Session {
  config: Config;
  context: ServiceContext;
  accounts: AccountService;
  keys: KeyService;
}

export function configFor(options: CommonOptions, extra: Override[] = []): Config {
  const overrides: Override[] = [...extra];
  if (options.redis !== undefined)
    overrides.push({ path: ["redis", "url"], value: options.redis, source: "--redis" });
  return loadConfig({ file: options.config, overrides }).config;
}

/** Runs `work` with a connected session and always closes the connection afterwards. */
export async function withSession<T>(
  options: CommonOptions,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const config = configFor(options);
  const redis = createRedis(config.redis, "cli");
  try {
    await connectRedis(redis, config.redis);
    const context = buildServiceContext(redis, {
      prefix: config.redis.prefix,
      timezone: config.billing.timezone,
    });
    return await work({
      config,
      context,
      accounts: new AccountService(context),
      keys: new KeyService(context),
    });
  } finally {
    closeRedis(redis);
  }
}
