// Picks the meter for an upstream response by its content type (SSE, newline-delimited JSON, JSON, anything
// else) and, when the upstream compressed it, meters a decompressed copy while the client receives the
// compressed bytes untouched. Decompression stops at metering.maxDecompressedBytes — a compression bomb
// costs at most that much work — and the usage is then estimated. Only an uncompressed stream can be
// rewritten (strip mode); the gateway asks for one when it needs to, and falls back to reading along if
// the upstream compresses anyway.

import type { IncomingHttpHeaders } from "node:http";
import type { Transform } from "node:stream";
import * as zlib from "node:zlib";
import type { UsageReport } from "../../core/usage.js";
import { JsonMeter } from "./json-meter.js";
import { NdjsonMeter } from "./ndjson-meter.js";
import { SseMeter } from "./sse-meter.js";
import { usageFromHeaders } from "./usage.js";

type Decompressor = () => Transform;

// zstd arrived in zlib with Node 22.15; on older Node a zstd response is metered by estimate.
const createZstd = (zlib as unknown as { createZstdDecompress?: Decompressor }).createZstdDecompress;

const DECOMPRESSORS: Record<string, Decompressor | undefined> = {
  gzip: () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  "x-gzip": () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  deflate: () => zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  br: () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  zstd: createZstd,
};

export interface MeterLimits {
  maxEventBytes: number;
  maxJsonBytes: number;
  maxDecompressedBytes: number;
}

export interface MeterResult {
  usage: UsageReport;
  /** Events of a stream (SSE data events, NDJSON lines); null for other responses. */
  events: number | null;
  /** Whether the meter could read the whole response (false past a limit, or for an unreadable encoding). */
  read: boolean;
}

export class ResponseMeter {
  /** Bytes received from the upstream, as sent (compressed or not). */
  bytes = 0;
  readonly stripping: boolean;
  private readonly sse: SseMeter | null;
  private readonly ndjson: NdjsonMeter | null;
  private readonly json: JsonMeter | null;
  private readonly decompressor: Transform | null;
  private decompressed = 0;
  private readable = true;
  private readonly finished: Promise<void>;
  /** Counts the upstream sent as headers; the body's reports win over them. */
  private readonly headerUsage: UsageReport;

  /**
   * @param strip what to take out of a stream the gateway asked for usage (see SseMeter), or null to pass
   *   the response on as it came
   */
  constructor(
    headers: IncomingHttpHeaders,
    strip: { everyChunk: boolean } | null,
    private readonly limits: MeterLimits,
  ) {
    this.headerUsage = usageFromHeaders(headers);
    const type = headers["content-type"]?.toLowerCase() ?? "";
    const encoding = headers["content-encoding"]?.toLowerCase().trim() ?? "identity";
    const identity = encoding === "identity" || encoding === "";
    const isSse = type.startsWith("text/event-stream");
    const isNdjson =
      !isSse && (type.startsWith("application/x-ndjson") || type.startsWith("application/jsonl"));
    this.stripping = strip !== null && isSse && identity;
    this.sse = isSse
      ? new SseMeter({
          strip: this.stripping,
          everyChunk: strip?.everyChunk ?? false,
          maxEventBytes: limits.maxEventBytes,
        })
      : null;
    this.ndjson = isNdjson ? new NdjsonMeter(limits.maxEventBytes) : null;
    this.json = !isSse && !isNdjson && type.includes("json") ? new JsonMeter(limits.maxJsonBytes) : null;
    const metered = this.sse !== null || this.ndjson !== null || this.json !== null;

    const makeDecompressor = identity || !metered ? undefined : DECOMPRESSORS[encoding];
    if (!identity && metered && !makeDecompressor) this.readable = false;
    this.decompressor = makeDecompressor ? makeDecompressor() : null;
    if (this.decompressor) {
      const decompressor = this.decompressor;
      decompressor.on("data", (chunk: Buffer) => this.decompressedChunk(chunk));
      this.finished = new Promise((resolve) => {
        decompressor.once("end", () => {
          this.endStreams();
          resolve();
        });
        decompressor.once("error", () => {
          this.readable = false;
          resolve();
        });
        decompressor.once("close", resolve);
      });
    } else {
      this.finished = Promise.resolve();
    }
  }

  /** Takes a chunk from the upstream; returns what to send to the client. */
  push(chunk: Buffer): Buffer | Buffer[] {
    this.bytes += chunk.length;
    if (this.stripping) return (this.sse as SseMeter).push(chunk);
    if (this.decompressor) {
      if (this.readable) this.decompressor.write(chunk);
    } else if (this.readable) this.meter(chunk);
    return chunk;
  }

  /** The upstream response ended; returns what is still held back (strip mode). */
  end(): Buffer[] {
    if (this.stripping) return (this.sse as SseMeter).end();
    if (this.decompressor) this.decompressor.end();
    else this.endStreams();
    return [];
  }

  /** The response was cut off: stop decompressing and keep what was read so far. */
  abort(): void {
    this.decompressor?.destroy();
  }

  async result(): Promise<MeterResult> {
    await this.finished;
    const read = this.readable;
    if (this.sse) return { usage: { ...this.headerUsage, ...this.sse.usage }, events: this.sse.events, read };
    if (this.ndjson)
      return { usage: { ...this.headerUsage, ...this.ndjson.usage }, events: this.ndjson.events, read };
    return { usage: { ...this.headerUsage, ...this.json?.usage() }, events: null, read };
  }

  private decompressedChunk(chunk: Buffer): void {
    if (!this.readable) return;
    this.decompressed += chunk.length;
    if (this.decompressed > this.limits.maxDecompressedBytes) {
      // A bomb, or a response larger than metering will read: the client still gets every byte.
      this.readable = false;
      (this.decompressor as Transform).destroy();
      return;
    }
    this.meter(chunk);
  }

  private meter(chunk: Buffer): void {
    if (this.sse) this.sse.push(chunk);
    else if (this.ndjson) this.ndjson.push(chunk);
    else this.json?.push(chunk);
  }

  private endStreams(): void {
    if (!this.readable) return;
    this.sse?.end();
    this.ndjson?.end();
  }
}
