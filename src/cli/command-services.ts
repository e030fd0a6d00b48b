// What a management command needs: the settings it uses (redis and billing; a bad listen port or upstream
// URL does not concern it), and a Redis connection with the service layer on top, closed when the command
// is done. The connection opens with the command's first Redis call, which the services make only once they
// have checked the command's arguments: a bad argument is reported as such even while Redis is down.

import { WEBHOOK_USER_AGENT } from "../alerts/webhook-sender.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { Identity } from "../identity/identity.js";
import { identitySettings } from "../identity/settings.js";
import { createLogger } from "../observability/logger.js";
import { AccountService } from "../services/accounts.js";
import { AlertService } from "../services/alerts.js";
import { BudgetService } from "../services/budgets.js";
import { KeyService } from "../services/keys.js";
import { UsageService } from "../services/usage.js";
import { closeRedis, createRedis, explainConnectFailures } from "../store/connection/redis.js";
import { openStores, type Stores } from "../store/stores.js";

import { type CommonOptions, redisFlagOverride } from "./common.js";

export type { CommonOptions };

/** The sections of the configuration the management commands use. */
const MANAGEMENT_SECTIONS = ["redis", "billing", "alerts", "admin", "signIn"] as const;
type ManagementConfig = Pick<Config, (typeof MANAGEMENT_SECTIONS)[number]>;

export interface CommandServices {
  config: ManagementConfig;
  stores: Stores;
  accounts: AccountService;
  budgets: BudgetService;
  keys: KeyService;
  usage: UsageService;
  alerts: AlertService;
  /** People: users, their passwords and set-password links. */
  identity: Identity;
  /** Where the dashboard is, for the links the CLI prints: admin.externalUrl, or the admin listener. */
  dashboardUrl: string;
}

/** Runs `work` with the services and always closes the connection afterwards. */
export async function withServices<T>(
  options: CommonOptions,
  work: (services: CommandServices) => Promise<T>,
): Promise<T> {
  const { config } = loadConfig({
    file: options.config,
    overrides: redisFlagOverride(options),
    sections: MANAGEMENT_SECTIONS,
  });
  const redis = createRedis(config.redis, "cli");
  const failures = explainConnectFailures(redis, config.redis);
  try {
    const stores = openStores(redis, {
      prefix: config.redis.prefix,
      timezone: config.billing.timezone,
      events: {
        keepMs: config.alerts.eventRetentionDays * 86_400_000,
        thresholds: config.alerts.thresholds,
      },
    });
    const signIn = identitySettings(config);
    const { host, port } = config.admin;
    // Loaded here, not with the module: only a command that runs needs the sign-in, not --help or a usage error.
    const { buildIdentity } = await import("../identity/identity.js");
    return await work({
      config,
      stores,
      identity: buildIdentity(stores, signIn, { logger: createLogger("silent") }),
      dashboardUrl: signIn.externalUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      accounts: new AccountService(stores),
      budgets: new BudgetService(stores),
      keys: new KeyService(stores),
      usage: new UsageService(stores),
      alerts: new AlertService(stores, {
        allowHttp: config.alerts.allowHttp,
        thresholds: config.alerts.thresholds,
        sender: {
          timeoutMs: config.alerts.delivery.timeoutMs,
          allowPrivateNetworks: config.alerts.allowPrivateNetworks,
          userAgent: WEBHOOK_USER_AGENT,
        },
      }),
    });
  } catch (error) {
    throw failures.explain(error);
  } finally {
    failures.stop();
    closeRedis(redis);
  }
}
