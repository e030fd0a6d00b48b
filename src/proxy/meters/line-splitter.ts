// Splits a byte stream into lines (ended by LF, CRLF or a lone CR, as server-sent events allow), in time
// linear in the bytes however the stream is cut into chunks: each byte is searched once (Buffer.indexOf)
// and copied at most once. A line longer than `maxLineBytes` is not kept: its content is reported as null,
// so that one endless line costs no memory. Every byte also goes to `raw`, in order, each line's bytes
// (terminator included) before the line itself, for callers that pass the stream on or hold it back.

const LF = 0x0a;
const CR = 0x0d;

export interface LineSink {
  /** Bytes of the stream, in order; a line's bytes all arrive before `line` reports it. */
  raw?(piece: Buffer): void;
  /** A complete line without its terminator, or null for a line longer than the limit. */
  line(content: Buffer | null): void;
}

export class LineSplitter {
  private content: Buffer[] = [];
  private contentBytes = 0;
  private oversized = false;
  /** The previous chunk ended with CR: an LF at the start of the next one belongs to it. */
  private pendingCR = false;
  /** Bytes searched for line ends, for the tests that hold the splitter to linear time. */
  scanned = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** At the start of a line, with nothing of the previous one pending. */
  get idle(): boolean {
    return !this.pendingCR && this.contentBytes === 0 && !this.oversized;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    if (this.pendingCR) {
      this.pendingCR = false;
      if (chunk[0] === LF) {
        this.sink.raw?.(chunk.subarray(0, 1));
        pos = 1;
      }
      this.finishLine();
    }
    const length = chunk.length;
    let nextLF = -2;
    let nextCR = -2;
    while (pos < length) {
      if (nextLF !== -1 && nextLF < pos) nextLF = chunk.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = chunk.indexOf(CR, pos);
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      if (end === -1) {
        this.scanned += length - pos;
        this.append(chunk.subarray(pos));
        this.sink.raw?.(chunk.subarray(pos));
        return;
      }
      this.scanned += end + 1 - pos;
      this.append(chunk.subarray(pos, end));
      if (end === nextCR && end === length - 1) {
        // Maybe the first half of CRLF: the next chunk tells.
        this.sink.raw?.(chunk.subarray(pos, end + 1));
        this.pendingCR = true;
        return;
      }
      const next = end === nextCR && chunk[end + 1] === LF ? end + 2 : end + 1;
      this.sink.raw?.(chunk.subarray(pos, next));
      this.finishLine();
      pos = next;
    }
  }

  /** The stream ended: a last line without a terminator is a line all the same. */
  end(): void {
    if (this.pendingCR || this.contentBytes > 0 || this.oversized) {
      this.pendingCR = false;
      this.finishLine();
    }
  }

  private append(piece: Buffer): void {
    if (this.oversized || piece.length === 0) return;
    if (this.contentBytes + piece.length > this.maxLineBytes) {
      this.oversized = true;
      this.content = [];
      this.contentBytes = 0;
      return;
    }
    this.content.push(piece);
    this.contentBytes += piece.length;
  }

  private finishLine(): void {
    const content = this.oversized
      ? null
      : this.content.length === 1
        ? (this.content[0] as Buffer)
        : Buffer.concat(this.content, this.contentBytes);
    this.content = [];
    this.contentBytes = 0;
    this.oversized = false;
    this.sink.line(content);
  }
}
