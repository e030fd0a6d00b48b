// Starts OpenTelemetry for the gateway, or nothing. The OTEL_* variables decide (telemetry-settings.ts); with
// neither traces nor metrics configured the gateway runs with NO_TELEMETRY and no @opentelemetry module is ever
// loaded: the SDK is imported here, dynamically, and only when a signal is on. It is apart from telemetry.ts so
// that the SDK, which implements that file's interfaces, imports them without an import circle.

import { NO_TELEMETRY, type Telemetry, type TelemetryOptions } from "./telemetry.js";
import { type Env, telemetrySettings } from "./telemetry-settings.js";

/**
 * Reads the OTEL_* variables and starts what they configure; NO_TELEMETRY when they configure nothing. Throws a
 * ConfigError naming the variable whose value the gateway cannot honour.
 */
export async function startTelemetry(env: Env, options: TelemetryOptions): Promise<Telemetry> {
  const settings = telemetrySettings(env);
  if (settings.traces === null && settings.metrics === null) return NO_TELEMETRY;
  const { startOpenTelemetry } = await import("./otel/sdk.js");
  return startOpenTelemetry(settings, options);
}
