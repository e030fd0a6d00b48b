// The configuration schema: every setting, its type, its default. The sections are defined by concern in the
// *-settings.ts files (the kinds of value they share in fields.ts); this is the one schema they make up.
// `config/default.yaml` documents the same settings with a comment each, and a test keeps the two equal.
// Unknown keys are refused so that a misspelled setting fails at start-up instead of being silently ignored.

import { z } from "zod";
import { alertsSection } from "./alert-settings.js";
import { billingSection } from "./billing-settings.js";
import { limitsSection, meteringSection } from "./limit-settings.js";
import {
  adminSection,
  authSection,
  listenSection,
  metricsSection,
  securitySection,
  shutdownSection,
  telemetrySection,
  tlsSection,
} from "./listener-settings.js";
import { loggingSection, requestLogSection } from "./logging-settings.js";
import { estimateSection, pricingSection } from "./pricing-settings.js";
import { redisSection } from "./redis-settings.js";
import { signInSection } from "./sign-in-settings.js";
import { endpointsSection, queueSection, upstreamSection } from "./upstream-settings.js";

export type { Price } from "./pricing-settings.js";
export { redisDatabase } from "./redis-settings.js";

export const configSchema = z.strictObject({
  listen: listenSection,
  auth: authSection,
  endpoints: endpointsSection,
  upstream: upstreamSection,
  queue: queueSection,
  tls: tlsSection,
  security: securitySection,
  shutdown: shutdownSection,
  redis: redisSection,
  metrics: metricsSection,
  telemetry: telemetrySection,
  admin: adminSection,
  signIn: signInSection,
  requestLog: requestLogSection,
  billing: billingSection,
  pricing: pricingSection,
  estimate: estimateSection,
  limits: limitsSection,
  metering: meteringSection,
  alerts: alertsSection,
  logging: loggingSection,
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
