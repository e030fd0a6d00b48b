// Meters a JSON response: keeps it (up to a cap) and reads its usage when it ends. A response larger than
// the cap is not kept whole; only its tail is, where model servers put "usage", and the usage object is cut
// out of it. Memory per request stays bounded whatever the response size.

import type { UsageReport } from "../../core/usage.js";
import { collectUsage, mayCarryUsage } from "./usage.js";

const DEFAULT_MAX_BYTES = 4 << 20;
const TAIL_BYTES = 64 << 10;

export class JsonMeter {
  private chunks: Buffer[] = [];
  private kept = 0;
  private overflowed = false;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    if (this.kept > this.maxBytes) this.overflowed = true;
    // Cut back to the tail once twice its size is kept: each byte is copied at most a few times, however
    // small the chunks.
    if (this.overflowed && this.kept >= 2 * TAIL_BYTES) {
      const whole = Buffer.concat(this.chunks, this.kept);
      this.chunks = [whole.subarray(whole.length - TAIL_BYTES)];
      this.kept = TAIL_BYTES;
    }
  }

  usage(): UsageReport {
    const usage: UsageReport = {};
    const text = (
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.kept)
    ).toString("utf8");
    if (!mayCarryUsage(text)) return usage;
    if (!this.overflowed) {
      try {
        collectUsage(JSON.parse(text), usage);
      } catch {
        // Not JSON after all: no usage reported.
      }
      return usage;
    }
    const at = text.lastIndexOf('"usage"');
    const object = at === -1 ? null : objectAfter(text, at + 7);
    if (object !== null) {
      try {
        collectUsage({ usage: JSON.parse(object) }, usage);
      } catch {
        // A torn tail: no usage reported.
      }
    }
    return usage;
  }
}

/** The JSON object text that starts at the first "{" after `from`, with nested objects and strings skipped. */
export function objectAfter(text: string, from: number): string | null {
  const start = text.indexOf("{", from);
  if (start === -1) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */ && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}
