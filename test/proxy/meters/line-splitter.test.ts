import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../../src/proxy/meters/line-splitter.js";

/** Splits `text` fed in the given pieces; returns the lines (null for an oversized one) and the raw bytes. */
function split(pieces: Buffer[], max = 1 << 20) {
  const lines: (string | null)[] = [];
  const raw: Buffer[] = [];
  const splitter = new LineSplitter(max, {
    raw: (piece) => raw.push(piece),
    line: (content) => lines.push(content === null ? null : content.toString("latin1")),
  });
  for (const piece of pieces) splitter.push(piece);
  splitter.end();
  return { lines, raw: Buffer.concat(raw), scanned: splitter.scanned };
}

const cut = (text: string, size: number) => {
  const bytes = Buffer.from(text, "latin1");
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

describe("LineSplitter", () => {
  it("ends lines at LF, CRLF and a lone CR, also when CRLF is cut between chunks", () => {
    const text = "a\nb\r\nc\rd\r\n\r\ne";
    for (const size of [1, 2, 3, 100]) {
      expect(split(cut(text, size)).lines).toEqual(["a", "b", "c", "d", "", "e"]);
    }
  });

  it("passes every byte to raw, in order", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "\n", "\r", "x") }),
        fc.integer({ min: 1, max: 9 }),
        (text, size) => {
          expect(split(cut(text, size)).raw.toString("latin1")).toBe(text);
        },
      ),
    );
  });

  it("gives the same lines however the stream is cut", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r") }),
        fc.integer({ min: 1, max: 9 }),
        (text, size) => {
          expect(split(cut(text, size)).lines).toEqual(split([Buffer.from(text, "latin1")]).lines);
        },
      ),
    );
  });

  it("reports a line longer than the limit as null, without keeping it", () => {
    const { lines } = split(cut(`${"x".repeat(50)}\nok\n`, 7), 10);
    expect(lines).toEqual([null, "ok"]);
  });

  it("searches each byte once: one endless line in tiny chunks costs its length, not its square", () => {
    const bytes = 4 << 20;
    const pieces = Array.from({ length: bytes / 64 }, () => Buffer.alloc(64, "x"));
    const { lines, scanned } = split(pieces, 1 << 20);
    expect(lines).toEqual([null]);
    expect(scanned).toBe(bytes);
  });
});
