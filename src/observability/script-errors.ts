// Script errors made loud: every Lua script Redis refused for good (store/scripts.ts observes them all, on
// the gateway's connection) is counted by the metric redis_script_errors_total{script} and logged at error
// level with the script's name. A failing script usually fails on every call — the admission lease of every
// budgeted account once did, logged at debug, counted by nothing — so each kind of failure (the script and
// its message, digits aside) is logged once when it first happens and then at most once a minute, with how
// many times it happened since: one line per minute per kind, however many requests meet it.

import type { Logger } from "pino";
import type { GatewayMetrics } from "./gateway-metrics.js";

/** At most one line per kind of script error in this time (ms). */
export const SCRIPT_ERROR_LOG_INTERVAL_MS = 60_000;
/** Kinds remembered at once; beyond, the oldest are forgotten (and logged again when they recur). */
const MOST_KINDS = 256;

interface Kind {
  loggedAt: number;
  /** Occurrences since the last line. */
  since: number;
}

export class ScriptErrors {
  private readonly kinds = new Map<string, Kind>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Pick<GatewayMetrics, "scriptError">,
    /** Monotonic time (ms): performance.now in the gateway. */
    private readonly now: () => number,
  ) {}

  report(script: string, error: Error): void {
    this.metrics.scriptError(script);
    const message = firstLine(error.message);
    const name = `${script}\n${message.replace(/\d+/g, "#")}`;
    const now = this.now();
    const kind = this.kinds.get(name);
    if (kind !== undefined && now - kind.loggedAt < SCRIPT_ERROR_LOG_INTERVAL_MS) {
      kind.since++;
      return;
    }
    const repeated = kind?.since ?? 0;
    this.kinds.delete(name);
    if (this.kinds.size >= MOST_KINDS) this.kinds.delete(this.kinds.keys().next().value as string);
    this.kinds.set(name, { loggedAt: now, since: 0 });
    this.logger.error({ script, err: message, ...(repeated > 0 && { repeated }) }, "a Redis script failed");
  }
}

/** The message's first line, at most 500 characters (a Lua error names the script's line; that is enough). */
function firstLine(message: string): string {
  const line = message.split("\n", 1)[0] ?? "";
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}
