// The process logger: pino, JSON lines on stdout. Log lines are built field by field by the code that
// writes them and never include headers, bodies of refused requests or query strings, so no credential can
// reach them; there is deliberately no redaction pass, which would cost every line and guard nothing.

import { type Logger, pino } from "pino";

/**
 * Lines go to stdout asynchronously (pino's destination writes on a thread-pool thread, never blocking a
 * request) and are gathered into writes of at least LOG_BATCH_BYTES, about ten request lines: each write,
 * with its hand-off to the thread pool and back (a write, futex wake-ups, an event-loop wake-up), costs more
 * CPU than the line itself, and without batching it would be paid once per request. A quiet gateway's lines
 * still go out within LOG_FLUSH_MS, and what is buffered is written when the process exits (a crash
 * included); a SIGKILL can lose the last LOG_FLUSH_MS of lines, never money, which is in Redis.
 */
export const LOG_BATCH_BYTES = 4096;
export const LOG_FLUSH_MS = 250;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "tunnel-gateway" },
      serializers: { err: serializeError },
    },
    destination ?? new LineBatches(pino.destination({ dest: 1, sync: false })),
  );
}

type Destination = ReturnType<typeof pino.destination>;

/** The loggers' batches not yet closed, handed over together when the process ends. */
const open = new Set<LineBatches>();
let handingOver = false;

function handOverAll(): void {
  for (const batches of open) {
    try {
      batches.pass();
    } catch {
      // Its stdout is gone (pino stops writing on EPIPE): nowhere to write them.
    }
  }
}

/**
 * The batches are gathered here, as a list of lines joined once per batch, and handed to pino's
 * destination (sonic-boom) whole. Gathered by sonic-boom itself (its minLength), every line would cost a
 * copy of the whole batch so far: it measures the text it holds on each write, and V8 flattens the text
 * appended to line by line to measure it (npm run bench:profile: ~3 KiB per request at 500 requests/s).
 */
class LineBatches implements pino.DestinationStream {
  private lines: string[] = [];
  private bytes = 0;

  constructor(private readonly out: Destination) {
    const timer = setInterval(() => this.pass(), LOG_FLUSH_MS);
    timer.unref();
    open.add(this);
    out.once("close", () => {
      clearInterval(timer);
      open.delete(this);
    });
    if (!handingOver) {
      handingOver = true;
      // Handed over before pino's destinations write out what they hold as the process ends (prepended, so
      // before their own exit handlers): one pair of listeners for every logger of the process.
      process.prependListener("beforeExit", handOverAll);
      process.prependListener("exit", handOverAll);
    }
  }

  write(line: string): void {
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= LOG_BATCH_BYTES) this.pass();
  }

  flush(callback?: (error?: Error) => void): void {
    this.pass();
    this.out.flush(callback);
  }

  flushSync(): void {
    this.pass();
    this.out.flushSync();
  }

  /** Hands what is gathered to the destination. */
  pass(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? (this.lines[0] as string) : this.lines.join("");
    this.lines = [];
    this.bytes = 0;
    this.out.write(text);
  }
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
