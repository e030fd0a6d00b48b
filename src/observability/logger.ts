// The process logger: pino, JSON lines on stdout. Log lines are built field by field by the code that
// writes them and never include headers, bodies of refused requests or query strings, so no credential can
// reach them; there is deliberately no redaction pass, which would cost every line and guard nothing.

import { type Logger, pino } from "pino";

export type { Logger };

/**
 * Logs to stdout asynchronously: a line is handed to the kernel without blocking the request that wrote
 * it, and lines written while a write is in flight go out together. Nothing waits for a buffer to fill, so
 * a quiet gateway's lines still appear at once; pino flushes what is pending when the process exits.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "tunnel-gateway" },
    },
    destination ?? pino.destination({ dest: 1, sync: false, minLength: 0 }),
  );
}
