// A logger whose lines the test reads: pino as the gateway builds it, writing each line synchronously into
// an array instead of stdout.

import type { Logger } from "pino";
import { createLogger } from "../../src/observability/logger.js";

export interface CapturedLogs {
  logger: Logger;
  lines: Record<string, any>[];
  /** The messages logged so far, in order. */
  messages(): string[];
}

export function captureLogs(level = "debug"): CapturedLogs {
  const lines: Record<string, any>[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, messages: () => lines.map((line) => String(line.msg)) };
}
