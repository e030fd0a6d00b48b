// Meters a server-sent-events stream as it passes through, in time linear in its bytes and memory bounded
// by metering.maxEventBytes whatever the stream holds (line-splitter.ts).
//
// In scan mode the bytes reach the client exactly as they came and the meter only reads along. In strip
// mode the gateway added stream_options.include_usage itself, and the meter takes out what that addition
// caused and nothing else (usage-strip.ts): whole events are held until they end, then passed on, changed
// or dropped. An event too large to hold is passed on as it comes, unparsed.
//
// Only events that can carry token counts (or, in strip mode, end the choices) are parsed as JSON. Most
// events are plain — one data line, a token, no usage — and cost no more than finding their end
// (sse-plain-events.ts): while nothing is pending, runs of them are counted in place and, in strip mode,
// passed on as one piece of the chunk; every other event goes through the line splitter below, which reads
// any stream however it is cut.

import type { UsageReport } from "../../core/usage.js";
import { LineSplitter } from "./line-splitter.js";
import { FINISHED, PlainEvents } from "./sse-plain-events.js";
import { collectUsage, mayCarryUsage } from "./usage.js";
import { type Emit, UsageStripper } from "./usage-strip.js";

const DEFAULT_MAX_EVENT_BYTES = 1 << 20;
const DATA = Buffer.from("data:");
const DONE = Buffer.from("[DONE]");
const LF = Buffer.from("\n");

interface Line {
  raw: Buffer[];
  /** The value of a data: line. */
  data: Buffer | null;
}

export interface SseMeterOptions {
  /** Take out what the gateway's include_usage caused (strip mode). */
  strip: boolean;
  /** The client asked for continuous usage stats without include_usage: take usage off every chunk. */
  everyChunk?: boolean;
  maxEventBytes?: number;
}

export class SseMeter {
  readonly usage: UsageReport = {};
  /** Data events the line splitter's path counted (see `events`). */
  private counted = 0;
  private readonly plain: PlainEvents;
  private readonly splitter: LineSplitter;
  private readonly stripper: UsageStripper | null;
  private readonly maxEventBytes: number;
  private data: Buffer[] = [];
  private dataBytes = 0;
  /** The current event holds a line or data too large to parse (its usage, if any, is lost). */
  private oversized = false;
  /** Strip mode: the current event's lines, held until it ends; the one event the stripper holds back. */
  private lines: Line[] = [];
  private current: Line = { raw: [], data: null };
  private heldBytes = 0;
  private heldEvent: Line[] | null = null;
  /** Strip mode: the current event was too large to hold and is being passed on as it comes. */
  private passing = false;
  private out: Buffer[] = [];

  constructor(options: SseMeterOptions) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.stripper = options.strip ? new UsageStripper(options.everyChunk ?? false) : null;
    this.plain = new PlainEvents(this.maxEventBytes, options.strip);
    this.splitter = new LineSplitter(this.maxEventBytes, {
      raw: this.stripper ? (piece) => this.raw(piece) : undefined,
      line: (content) => this.line(content),
    });
  }

  /** Data events seen, other than [DONE] and a removed usage chunk: one token each for an estimate. */
  get events(): number {
    return this.counted + this.plain.events;
  }

  /** Bytes searched so far (the linear-time tests). */
  get scanned(): number {
    return this.splitter.scanned + this.plain.scanned;
  }

  /** Reads a chunk. In strip mode returns the bytes to send on (possibly none); in scan mode none. */
  push(chunk: Buffer): Buffer[] {
    if (!this.idle() || !this.plain.begin(chunk)) {
      this.splitter.push(chunk);
      return this.take();
    }
    const length = chunk.length;
    let pos = 0;
    while (pos < length) {
      const end = this.plain.run(pos);
      if (end > pos && this.stripper) this.out.push(end - pos === length ? chunk : chunk.subarray(pos, end));
      if (end === length) break;
      // The event at `end` is not plain: the splitter reads it, and the rest of the chunk too if that leaves
      // something pending (an event that goes on in the next chunk, a choice chunk held back).
      const next = chunk.indexOf(EVENT_END, end);
      if (next === -1) {
        this.splitter.push(end === 0 ? chunk : chunk.subarray(end));
        break;
      }
      pos = next + EVENT_END.length;
      this.splitter.push(chunk.subarray(end, pos));
      if (pos < length && !this.idle()) {
        this.splitter.push(chunk.subarray(pos));
        break;
      }
    }
    return this.take();
  }

  /** Nothing is pending between events: no line begun, no event held, no data gathered. */
  private idle(): boolean {
    if (!this.splitter.idle || this.data.length > 0 || this.oversized) return false;
    if (this.stripper === null) return true;
    return (
      this.lines.length === 0 &&
      this.current.raw.length === 0 &&
      this.heldEvent === null &&
      !this.passing &&
      !this.stripper.holding
    );
  }

  /** Ends the stream; in strip mode returns whatever is still held back. */
  end(): Buffer[] {
    this.splitter.end();
    this.dispatch();
    if (this.stripper) {
      this.emit(this.stripper.end());
      this.flushLines();
    }
    return this.take();
  }

  private take(): Buffer[] {
    if (this.out.length === 0) return NONE;
    const out = this.out;
    this.out = [];
    return out;
  }

  private raw(piece: Buffer): void {
    if (this.passing) {
      this.out.push(piece);
      return;
    }
    this.current.raw.push(piece);
    this.heldBytes += piece.length;
    if (this.heldBytes > this.maxEventBytes) {
      // Too big to be what include_usage added: send on what is held and pass the rest through.
      this.emit((this.stripper as UsageStripper).end());
      this.flushLines();
      this.passing = true;
    }
  }

  private line(content: Buffer | null): void {
    if (content === null) {
      this.oversized = true;
      this.closeLine(null);
      return;
    }
    if (content.length === 0) {
      this.closeLine(null);
      this.dispatch();
      return;
    }
    let data: Buffer | null = null;
    if (!this.oversized && startsWith(content, DATA)) {
      data = content.subarray(content[5] === 0x20 ? 6 : 5);
      this.dataBytes += data.length + (this.data.length > 0 ? 1 : 0);
      if (this.dataBytes > this.maxEventBytes) {
        this.oversized = true;
        this.data = [];
      } else {
        this.data.push(data);
      }
    }
    this.closeLine(data);
  }

  private closeLine(data: Buffer | null): void {
    if (!this.stripper || this.passing) return;
    this.current.data = data;
    this.lines.push(this.current);
    this.current = { raw: [], data: null };
  }

  /** Handles one complete event (at its blank line, or at the end of the stream). */
  private dispatch(): void {
    const parts = this.data;
    const oversized = this.oversized;
    this.data = [];
    this.dataBytes = 0;
    this.oversized = false;
    let data: Buffer | null = null;
    let parsed: unknown;
    if (parts.length > 0 && !oversized) {
      data = parts.length === 1 ? (parts[0] as Buffer) : joinLines(parts);
      if (!data.equals(DONE)) {
        this.counted++;
        if (mayCarryUsage(data) || (this.stripper && data.includes(FINISHED))) {
          try {
            parsed = JSON.parse(data.toString("utf8"));
          } catch {
            parsed = undefined;
          }
          collectUsage(parsed, this.usage);
        }
      }
    }
    if (!this.stripper) return;
    if (this.passing) {
      this.passing = false;
    } else if (this.lines.length > 0) {
      const verdict = this.stripper.event(data, parsed);
      if (!verdict.emit.some((e) => e.which === "current") && !verdict.hold && data !== null) this.counted--;
      this.emit(verdict.emit);
      if (verdict.hold) this.heldEvent = this.lines;
    }
    this.lines = [];
    this.heldBytes = 0;
  }

  /** Sends events on: the held one or the current one, as they came or with their data replaced. */
  private emit(emits: readonly Emit[]): void {
    for (const { which, data } of emits) {
      const lines = which === "held" ? this.heldEvent : this.lines;
      if (which === "held") this.heldEvent = null;
      if (lines === null) continue;
      if (data === null) for (const line of lines) for (const piece of line.raw) this.out.push(piece);
      else this.writeWithData(lines, data);
    }
  }

  /** Sends on the lines of an event not yet complete (before passing an oversized one through). */
  private flushLines(): void {
    for (const line of this.lines) for (const piece of line.raw) this.out.push(piece);
    for (const piece of this.current.raw) this.out.push(piece);
    this.lines = [];
    this.current = { raw: [], data: null };
  }

  /** An event's lines with its data replaced: one data line, in place of the first. */
  private writeWithData(lines: readonly Line[], data: Buffer): void {
    let written = false;
    for (const line of lines) {
      if (line.data === null) {
        for (const piece of line.raw) this.out.push(piece);
      } else if (!written) {
        written = true;
        const raw = line.raw.length === 1 ? (line.raw[0] as Buffer) : Buffer.concat(line.raw);
        const end = raw.length - lineEndLength(raw);
        // The line as it was up to its value, then the new value and the line's own terminator.
        this.out.push(raw.subarray(0, end - line.data.length), data, raw.subarray(end));
      }
    }
  }
}

const NONE: Buffer[] = [];
/** A blank line after a line: the end of an event, in a chunk without CR. */
const EVENT_END = Buffer.from("\n\n");

function startsWith(content: Buffer, prefix: Buffer): boolean {
  return content.length >= prefix.length && content.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** Data lines of one event joined with LF, as the SSE format defines. */
function joinLines(parts: Buffer[]): Buffer {
  const joined: Buffer[] = [];
  for (const part of parts) {
    if (joined.length > 0) joined.push(LF);
    joined.push(part);
  }
  return Buffer.concat(joined);
}

function lineEndLength(raw: Buffer): number {
  const last = raw[raw.length - 1];
  if (last === 0x0a) return raw[raw.length - 2] === 0x0d ? 2 : 1;
  return last === 0x0d ? 1 : 0;
}
