// The cheap path of an SSE stream: nearly every event of a completion is one `data:` line ended by a blank
// line, wholly inside one chunk, carrying a token and no usage. Such an event only has to be counted (one
// token for an estimate) and, in strip mode, passed on as it came. This scanner finds runs of them in a chunk
// with byte searches that allocate nothing — one memchr for the line's end, and, once per chunk, the
// markers of what needs the careful path (line-splitter.ts and sse-meter.ts): the fields a usage report
// always has (usage.ts), a finished choice (strip mode), any CR. Whatever is not plain — an event cut by the
// chunk's end, several lines, a marker, a line near the size limit — stops the run, and the careful path
// reads that event exactly as it reads everything else; the scanner decides only what the careful path would
// have decided the same way.

import { USAGE_MARKERS } from "./usage.js";

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** The choices of a chunk that says this have ended: strip mode may hold it back (usage-strip.ts). */
export const FINISHED = Buffer.from('"finish_reason":"');
/** What sends an event the careful way, shared by every stream of a mode. */
const SCAN_MARKERS = USAGE_MARKERS.map((marker) => Buffer.from(marker));
const STRIP_MARKERS = [...SCAN_MARKERS, FINISHED];
const DONE = Buffer.from("[DONE]");
const NOT_SEARCHED = -2;

export class PlainEvents {
  /** Plain data events counted (not [DONE]). */
  events = 0;
  /** Bytes read by the plain path (the linear-time tests add them to the careful path's). */
  scanned = 0;
  private chunk: Buffer = DONE;
  /** Next offset of each marker in the chunk, NOT_SEARCHED before the first search, -1 when there is none. */
  private readonly next: number[];
  private readonly markers: readonly Buffer[];

  /**
   * @param maxEventBytes events longer than this go the careful way (which knows what to do with them)
   * @param strip whether a finished choice needs the careful path too
   */
  constructor(
    private readonly maxEventBytes: number,
    strip: boolean,
  ) {
    this.markers = strip ? STRIP_MARKERS : SCAN_MARKERS;
    this.next = this.markers.map(() => NOT_SEARCHED);
  }

  /** Starts reading a chunk; false when it holds a CR, whose line ends only the careful path follows. */
  begin(chunk: Buffer): boolean {
    this.chunk = chunk;
    this.next.fill(NOT_SEARCHED);
    return chunk.indexOf(CR) === -1;
  }

  /**
   * Counts the plain events from `pos`, which must be the start of an event, and returns the offset where
   * they stop (`pos` itself when the event there is not plain, the chunk's length when all were).
   */
  run(pos: number): number {
    const chunk = this.chunk;
    const length = chunk.length;
    while (pos < length) {
      const lf = chunk.indexOf(LF, pos);
      // Not ended in this chunk, or a line of an event that has more than one.
      if (lf === -1 || chunk[lf + 1] !== LF) return pos;
      const end = lf + 2;
      if (end - pos > this.maxEventBytes || this.marked(pos, lf)) return pos;
      if (isDataLine(chunk, pos, lf) && !isDone(chunk, pos, lf)) this.events++;
      this.scanned += end - pos;
      pos = end;
    }
    return pos;
  }

  /** Whether a marker lies within [from, to): searched once per chunk and marker, past what was read. */
  private marked(from: number, to: number): boolean {
    for (let i = 0; i < this.markers.length; i++) {
      let at = this.next[i] as number;
      if (at !== -1 && at < from) {
        at = this.chunk.indexOf(this.markers[i] as Buffer, from);
        this.next[i] = at;
      }
      if (at !== -1 && at < to) return true;
    }
    return false;
  }
}

/** A line that starts with `data:` (bytes d, a, t, a, colon). */
function isDataLine(chunk: Buffer, start: number, end: number): boolean {
  return (
    end - start >= 5 &&
    chunk[start] === 0x64 &&
    chunk[start + 1] === 0x61 &&
    chunk[start + 2] === 0x74 &&
    chunk[start + 3] === 0x61 &&
    chunk[start + 4] === 0x3a
  );
}

/** The line `data: [DONE]` (or `data:[DONE]`), the end of an OpenAI stream: not a token. */
function isDone(chunk: Buffer, start: number, end: number): boolean {
  const value = chunk[start + 5] === SPACE ? start + 6 : start + 5;
  return (
    end - value === DONE.length &&
    chunk[value] === 0x5b &&
    chunk.compare(DONE, 0, DONE.length, value, end) === 0
  );
}
