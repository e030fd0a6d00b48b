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
      serializers: { err: serializeError },
    },
    destination ?? pino.destination({ dest: 1, sync: false, minLength: 0 }),
  );
}

/**
 * pino's error serializer, minus the arguments ioredis attaches to the error of a failed command
 * (`command.args`): for a settlement they hold the request-log entry with its bodies, and no argument list
 * belongs in a log line. The command's name stays. Applies to every `err` field of every line.
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error);
  dropCommandArguments(serialized, Object.getPrototypeOf(serialized));
  return serialized;
}

/** Replaces `command` by its name in a serialized error and the errors nested in it (copies, not originals). */
function dropCommandArguments(serialized: unknown, errorProto: object | null): void {
  if (typeof serialized !== "object" || serialized === null) return;
  const fields = serialized as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (key === "command" && typeof value === "object" && value !== null) {
      fields[key] = (value as { name?: unknown }).name;
    } else if (Array.isArray(value)) {
      for (const item of value) dropCommandArguments(item, errorProto);
    } else if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === errorProto) {
      dropCommandArguments(value, errorProto);
    }
  }
}
