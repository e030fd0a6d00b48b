// The request's log line written as text in one pass: byte for byte the line pino writes for
// logger.info(logFields(request), message), for any request; and pino's own writer wherever the logger is
// set up in a way the one pass does not reproduce.

import fc from "fast-check";
import { type Logger, pino } from "pino";
import { describe, expect, it } from "vitest";
import type { RecordOutcome } from "../../src/core/outcome.js";
import type { GatewayRequest } from "../../src/core/request.js";
import { logFields } from "../../src/observability/log-line.js";
import { createLogger } from "../../src/observability/logger.js";
import { requestLineWriter } from "../../src/observability/request-line.js";
import { finishedRequest, requestWith } from "../helpers/requests.js";

/** A logger as the gateway makes it (or as `make` does), keeping each line as written, at a fixed time. */
function written(make: (stream: { write(line: string): void }) => Logger = (s) => createLogger("info", s)) {
  const lines: string[] = [];
  const logger = make({ write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** Both lines of the request: pino's and the writer's, with pino's time made the same. */
function bothLines(
  logger: Logger,
  lines: string[],
  request: GatewayRequest,
  bodyLimit: number | null,
  message: string,
) {
  lines.length = 0;
  logger.info(logFields(request, bodyLimit), message);
  requestLineWriter(logger)(request, bodyLimit, message);
  return lines.map((line) => line.replace(/^(\{"level":30,"time":)\d+/, (_, head) => `${head}0`));
}

// Text of every kind: quotes, backslashes, control characters, lone surrogates, long (pino escapes strings
// over 100 characters differently from short ones).
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: "binary", minLength: 95, maxLength: 130 }),
  fc.constantFrom('"', "\\", 'a"b\\c', "\n", "\ud800", "é€😀", "\u2028"),
);
const number = fc.oneof(
  fc.double({ min: -1e9, max: 1e13 }),
  fc.integer({ min: 0, max: 1e9 }),
  fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 0.0005, 1.0005),
);
const request = fc
  .record({
    requestId: fc.option(text),
    method: fc.option(text),
    path: fc.option(text),
    accountId: fc.option(text),
    keyId: fc.option(text),
    keyName: fc.option(text),
    model: fc.option(text),
    endpointClass: fc.option(text),
    status: number,
    outcome: fc.oneof(fc.constantFrom("completed", "refused", "refused", "upstream_error"), text),
    code: fc.option(text),
    promptTokens: number,
    completionTokens: number,
    cachedTokens: number,
    cacheWriteTokens: number,
    cost: fc.integer({ min: -1e12, max: 1e15 }),
    estimated: fc.boolean(),
    usageRejected: fc.option(text),
    overage: fc.oneof(fc.constant(0), fc.integer({ min: -10, max: 1e12 })),
    latencyMs: number,
    upstreamTtfbMs: fc.option(number),
    gatewayMs: number,
    queuedAt: fc.oneof(fc.constant(0), fc.double({ min: 1, max: 1e6, noNaN: true })),
    dequeuedAt: fc.double({ min: 0, max: 2e6, noNaN: true }),
    trace: fc.option(fc.record({ sampled: fc.boolean(), traceId: text, spanId: text })),
    bodies: fc.option(fc.record({ request: text, response: text })),
  })
  .map(({ outcome, bodies, trace, ...fields }) =>
    requestWith({
      ...(fields as object),
      outcome: outcome as RecordOutcome,
      trace: trace as GatewayRequest["trace"],
      bodies: bodies && {
        request: (limit) => bodies.request.slice(0, limit),
        response: () => bodies.response,
      },
    }),
  );

describe("requestLineWriter", () => {
  it("writes exactly pino's line of logFields for any request, finished or refused, with or without bodies", () => {
    const { logger, lines } = written();
    fc.assert(
      fc.property(
        request,
        fc.option(fc.nat(200)),
        fc.constantFrom("request", "request refused", 'a "quoted"\n'),
        (r, limit, message) => {
          const [pinos, ours] = bothLines(logger, lines, r, limit, message);
          expect(ours).toBe(pinos);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("writes a finished request's line as pino does, bindings of a child logger included", () => {
    const { logger, lines } = written();
    const child = logger.child({ replica: 'r"1' });
    const [pinos, ours] = bothLines(child, lines, finishedRequest(), null, "request");
    expect(ours).toBe(pinos);
    expect(JSON.parse(ours as string)).toMatchObject({
      service: "tunnel-gateway",
      replica: 'r"1',
      request_id: "req-1",
    });
  });

  it("writes nothing below the logger's level", () => {
    const { logger, lines } = written((s) => createLogger("warn", s));
    requestLineWriter(logger)(finishedRequest(), null, "request");
    expect(lines).toEqual([]);
  });

  it("leaves the line to pino where the logger changes what pino writes (a mixin, a formatter, a serializer)", () => {
    const settings: pino.LoggerOptions[] = [
      { mixin: () => ({ extra: 1 }) },
      { formatters: { log: (fields) => ({ ...fields, formatted: true }) } },
      { serializers: { model: () => "hidden" } },
      { msgPrefix: "gw: " },
      { nestedKey: "payload" },
      { redact: ["key_name"] },
    ];
    for (const options of settings) {
      const { logger, lines } = written((s) => pino(options, s));
      const [pinos, ours] = bothLines(logger, lines, finishedRequest(), null, "request");
      expect(ours).toBe(pinos);
      expect(ours).toMatch(/extra|formatted|hidden|gw: |payload|Redacted/);
    }
  });
});
