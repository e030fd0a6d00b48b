// The process logger: pino, JSON lines on stdout. Request logs are built field by field by the code that
// writes them (never from raw headers), and the redaction below is a second line of defence for anything
// that might carry a credential.

import { type Logger, pino } from "pino";

export type { Logger };

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "tunnel-gateway" },
      redact: {
        paths: [
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
          "key",
          "token",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
