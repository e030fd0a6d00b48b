// The identity layer (people, sessions, tokens, sign-in) over a test store, with the configuration's
// defaults unless a test gives its own admin or signIn settings.

import type { Logger } from "pino";
import { configSchema } from "../../src/config/schema.js";
import { buildIdentity, type Identity } from "../../src/identity/identity.js";
import { identitySettings } from "../../src/identity/settings.js";
import { captureLogs } from "./logs.js";
import type { TestStore } from "./store.js";

export interface IdentityOptions {
  adminToken?: string;
  admin?: Record<string, unknown>;
  signIn?: Record<string, unknown>;
  logger?: Logger;
  providerSecrets?: ReadonlyMap<string, string | null>;
}

export function testIdentity(store: TestStore, options: IdentityOptions = {}): Identity {
  const config = configSchema.parse({
    admin: { ...(options.adminToken && { token: options.adminToken }), ...options.admin },
    signIn: { local: { enabled: true }, ...options.signIn },
  });
  return buildIdentity(store.stores, identitySettings(config), {
    adminToken: config.admin.token,
    logger: options.logger ?? captureLogs().logger,
    ...(options.providerSecrets && { providerSecrets: options.providerSecrets }),
  });
}
