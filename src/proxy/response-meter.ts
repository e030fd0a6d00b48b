// Picks the meter for an upstream response by its content type (SSE, JSON, anything else) and, when the
// upstream compressed it, meters a decompressed copy while the client receives the compressed bytes
// untouched. Only an uncompressed stream can be rewritten (strip mode); the gateway asks for one when it
// needs to, and falls back to reading along if the upstream compresses anyway.

import type { IncomingHttpHeaders } from "node:http";
import type { Transform } from "node:stream";
import * as zlib from "node:zlib";
import { JsonMeter } from "./json-meter.js";
import { SseMeter } from "./sse-meter.js";
import type { ReportedUsage } from "./usage.js";

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

export interface MeterResult {
  usage: ReportedUsage;
  /** Data events of an SSE response (null for other responses). */
  events: number | null;
}

export class ResponseMeter {
  /** Bytes received from the upstream, as sent (compressed or not). */
  bytes = 0;
  readonly stripping: boolean;
  private readonly sse: SseMeter | null;
  private readonly json: JsonMeter | null;
  private readonly decompressor: Transform | null;
  private readable = true;
  private readonly finished: Promise<void>;

  constructor(headers: IncomingHttpHeaders, wantStrip: boolean) {
    const type = headers["content-type"]?.toLowerCase() ?? "";
    const encoding = headers["content-encoding"]?.toLowerCase().trim() ?? "identity";
    const identity = encoding === "identity" || encoding === "";
    const isSse = type.startsWith("text/event-stream");
    this.stripping = wantStrip && isSse && identity;
    this.sse = isSse ? new SseMeter(this.stripping) : null;
    this.json = !isSse && type.includes("json") ? new JsonMeter() : null;

    const makeDecompressor = identity || (!this.sse && !this.json) ? undefined : DECOMPRESSORS[encoding];
    if (!identity && (this.sse || this.json) && !makeDecompressor) this.readable = false;
    this.decompressor = makeDecompressor ? makeDecompressor() : null;
    if (this.decompressor) {
      const decompressor = this.decompressor;
      decompressor.on("data", (chunk: Buffer) => this.meter(chunk));
      this.finished = new Promise((resolve) => {
        decompressor.once("end", () => {
          this.sse?.end();
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
  push(chunk: Buffer): Buffer | string {
    this.bytes += chunk.length;
    if (this.stripping) return (this.sse as SseMeter).push(chunk);
    if (this.decompressor) this.decompressor.write(chunk);
    else if (this.readable) this.meter(chunk);
    return chunk;
  }

  /** The upstream response ended; returns any text still held back (strip mode). */
  end(): string {
    if (this.stripping) return (this.sse as SseMeter).end();
    if (this.decompressor) this.decompressor.end();
    else if (this.sse) this.sse.end();
    return "";
  }

  /** The response was cut off: stop decompressing and keep what was read so far. */
  abort(): void {
    this.decompressor?.destroy();
  }

  async result(): Promise<MeterResult> {
    await this.finished;
    if (this.sse) return { usage: this.sse.usage, events: this.sse.events };
    return { usage: this.json?.usage() ?? {}, events: null };
  }

  private meter(chunk: Buffer): void {
    if (this.sse) this.sse.push(chunk);
    else this.json?.push(chunk);
  }
}
