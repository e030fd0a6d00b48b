// Meters a server-sent-events stream as it passes through. In scan mode the bytes reach the client exactly
// as they came and the meter only reads along; in strip mode (the gateway added stream_options.include_usage
// itself) it passes whole events through and drops the usage-only chunk that the addition caused, so the
// client receives exactly the events it would have received without the gateway.
//
// Only events that can carry token counts are parsed as JSON; every other event costs a substring search.
// A pathological event larger than `maxEventChars` is passed on unparsed rather than buffered.

import { StringDecoder } from "node:string_decoder";
import { collectUsage, type ReportedUsage } from "./usage.js";

const LINE_BREAK = /\r\n|\r|\n/g;
const DEFAULT_MAX_EVENT_CHARS = 1 << 20;

export class SseMeter {
  readonly usage: ReportedUsage = {};
  /** Data events seen, other than [DONE] and a removed usage chunk: one token each for an estimate. */
  events = 0;
  private readonly decoder = new StringDecoder("utf8");
  private buffer = "";
  private lineStart = 0;
  private readonly data: string[] = [];
  private oversized = false;

  constructor(
    private readonly strip: boolean,
    private readonly maxEventChars = DEFAULT_MAX_EVENT_CHARS,
  ) {}

  /** Reads a chunk. In strip mode returns the text to send on (possibly empty); in scan mode returns "". */
  push(chunk: Buffer): string {
    this.buffer += this.decoder.write(chunk);
    return this.drain(false);
  }

  /** Ends the stream; in strip mode returns whatever text is still held back. */
  end(): string {
    this.buffer += this.decoder.end();
    return this.drain(true);
  }

  private drain(final: boolean): string {
    let out = "";
    let eventStart = 0;
    const buffer = this.buffer;
    LINE_BREAK.lastIndex = this.lineStart;
    for (let match = LINE_BREAK.exec(buffer); match !== null; match = LINE_BREAK.exec(buffer)) {
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (!final && match[0] === "\r" && match.index === buffer.length - 1) break;
      const next = match.index + match[0].length;
      if (match.index === this.lineStart) {
        if (this.dispatch() && this.strip) out += buffer.slice(eventStart, next);
        eventStart = next;
      } else if (!this.oversized && buffer.startsWith("data:", this.lineStart)) {
        const valueStart =
          buffer.charCodeAt(this.lineStart + 5) === 32 ? this.lineStart + 6 : this.lineStart + 5;
        this.data.push(buffer.slice(valueStart, match.index));
      }
      this.lineStart = next;
    }

    if (final) {
      // A stream that ends without a blank line leaves its last event undispatched; read it anyway.
      if (this.lineStart < buffer.length && !this.oversized && buffer.startsWith("data:", this.lineStart)) {
        const valueStart =
          buffer.charCodeAt(this.lineStart + 5) === 32 ? this.lineStart + 6 : this.lineStart + 5;
        this.data.push(buffer.slice(valueStart));
      }
      if (this.dispatch() && this.strip) out += buffer.slice(eventStart);
      this.reset();
      return out;
    }

    this.buffer = buffer.slice(eventStart);
    this.lineStart -= eventStart;
    if (this.buffer.length > this.maxEventChars) {
      // Too big to be a usage chunk: send it on as it is and ignore the rest of this event.
      if (this.strip) out += this.buffer;
      this.reset();
      this.oversized = true;
    }
    return out;
  }

  /** Handles one complete event; returns whether it goes on to the client. */
  private dispatch(): boolean {
    const oversized = this.oversized;
    this.oversized = false;
    if (this.data.length === 0 || oversized) {
      this.data.length = 0;
      return true;
    }
    const data = this.data.length === 1 ? (this.data[0] as string) : this.data.join("\n");
    this.data.length = 0;
    if (data === "[DONE]") return true;
    // Every usage shape has a *_tokens field; events without one are not worth a JSON.parse.
    if (data.includes('_tokens"')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = undefined;
      }
      if (collectUsage(parsed, this.usage) && this.strip && isUsageOnlyChunk(parsed)) return false;
    }
    this.events++;
    return true;
  }

  private reset(): void {
    this.buffer = "";
    this.lineStart = 0;
    this.data.length = 0;
  }
}

/** The chunk include_usage adds at the end of a chat or text completion stream: no choices, only usage. */
function isUsageOnlyChunk(value: unknown): boolean {
  const chunk = value as { choices?: unknown; usage?: unknown };
  return (
    Array.isArray(chunk.choices) &&
    chunk.choices.length === 0 &&
    typeof chunk.usage === "object" &&
    chunk.usage !== null
  );
}
