// Meters a newline-delimited JSON stream (Ollama's native /api/chat and /api/generate): one JSON object per
// line, the final one with the usage (prompt_eval_count, eval_count). Linear in the bytes, with memory
// bounded by the longest line kept (metering.maxEventBytes); the bytes reach the client as they came.

import type { UsageReport } from "../../core/usage.js";
import { LineSplitter } from "./line-splitter.js";
import { collectUsage, mayCarryUsage } from "./usage.js";

export class NdjsonMeter {
  readonly usage: UsageReport = {};
  /** Lines seen: one token each for an estimate, as Ollama streams a token per line. */
  events = 0;
  private readonly splitter: LineSplitter;

  constructor(maxLineBytes: number) {
    this.splitter = new LineSplitter(maxLineBytes, { line: (content) => this.line(content) });
  }

  get scanned(): number {
    return this.splitter.scanned;
  }

  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  end(): void {
    this.splitter.end();
  }

  private line(content: Buffer | null): void {
    if (content === null) {
      this.events++;
      return;
    }
    if (content.length === 0) return;
    this.events++;
    if (!mayCarryUsage(content)) return;
    try {
      collectUsage(JSON.parse(content.toString("utf8")), this.usage);
    } catch {
      // Not JSON: no usage on this line.
    }
  }
}
