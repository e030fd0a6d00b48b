// What the gateway takes out of a stream it asked for usage (stream_options.include_usage), so that the
// client receives exactly the stream it asked for — what the server sends without the option — as the
// servers' sources show (test/fixtures/upstreams):
//   - vLLM, SGLang, TGI and Ollama add one chunk with no choices and the usage: it is dropped whole.
//   - Ollama also puts a zero "usage" on every other chunk: each goes on without it.
//   - llama.cpp moves the "timings" of its last choice chunk onto its usage chunk: they go back where they
//     were, and the usage chunk is dropped.
//   - What a server sends anyway stays: SGLang's usage on its last choice chunk, vLLM's "usage": null.
//   - A client that asked for vLLM's continuous_usage_stats without include_usage would have received no
//     usage at all: every chunk goes on without it.
// Members are removed from and added to the chunks' bytes (json-scan.ts); nothing else is re-serialized.
// The last choice chunk is held back until the next event says whether timings come back to it.

import { editMembers, scanJson } from "../request/json-scan.js";

/** One event to send on: the one held back or the current one, with new data or (null) as it came. */
export interface Emit {
  which: "held" | "current";
  data: Buffer | null;
}

export interface StripVerdict {
  /** What to send, in order; a held event not named here stays held, a current one is dropped. */
  emit: Emit[];
  /** Hold the current event back. */
  hold: boolean;
}

/** Members of a chunk that only frame it: a chunk with nothing else but its usage is the usage chunk. */
const ENVELOPE = new Set([
  "id",
  "object",
  "created",
  "model",
  "system_fingerprint",
  "service_tier",
  "choices",
]);
const USAGE = "usage";
/** Chunks are small and parsed already (so bounded in depth): their scans need no bound of their own. */
const ANY_DEPTH = Number.MAX_SAFE_INTEGER;
const KEEP: Emit = { which: "current", data: null };

export class UsageStripper {
  /** The last choice chunk, held back: its data as it came, and what it goes on with (null: as it came). */
  private held: { original: Buffer; data: Buffer | null } | null = null;

  /** Whether a last choice chunk is held back, waiting for the next event. */
  get holding(): boolean {
    return this.held !== null;
  }

  /** @param everyChunk the client asked for usage on every chunk (continuous_usage_stats) but not at the end */
  constructor(private readonly everyChunk: boolean) {}

  /** Decides about one event; `parsed` is its data as JSON (undefined when it was not parsed). */
  event(data: Buffer | null, parsed: unknown): StripVerdict {
    const chunk = isObject(parsed) ? parsed : null;
    const release: Emit[] = [];
    if (this.held) {
      const held = this.held;
      this.held = null;
      if (chunk && isUsageChunk(chunk)) {
        // The chunk the option added: its extra members (llama.cpp's timings) go back on the held chunk.
        const extras = Object.keys(chunk).filter((key) => isExtra(chunk, key));
        const merged = extras.length
          ? withMembersOf(held.data ?? held.original, toBuffer(data), extras)
          : held.data;
        return { emit: [{ which: "held", data: merged }], hold: false };
      }
      release.push({ which: "held", data: held.data });
    }
    if (!chunk || data === null) return { emit: [...release, KEEP], hold: false };

    let current: Buffer | null = null;
    const usage = chunk[USAGE];
    if (isUsageChunk(chunk)) {
      const extras = Object.keys(chunk).some((key) => isExtra(chunk, key));
      // With nothing held to take its extras back, the chunk goes on without its usage.
      return {
        emit: extras ? [...release, { which: "current", data: without(data, USAGE) }] : release,
        hold: false,
      };
    }
    if (isObject(usage) && (this.everyChunk || allZero(usage))) current = without(data, USAGE);
    if (isLastChoiceChunk(chunk)) {
      this.held = { original: data, data: current };
      return { emit: release, hold: true };
    }
    return { emit: [...release, { which: "current", data: current }], hold: false };
  }

  /** The stream ended: what is still held goes on. */
  end(): Emit[] {
    const held = this.held;
    this.held = null;
    return held ? [{ which: "held", data: held.data }] : [];
  }
}

function toBuffer(data: Buffer | null): Buffer {
  return data ?? Buffer.alloc(0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A chunk with no choices that carries usage, and otherwise only framing or what the server adds to it. */
function isUsageChunk(chunk: Record<string, unknown>): boolean {
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && isObject(chunk[USAGE]);
}

/** A member of a usage chunk that is neither framing nor the usage, nor empty. */
function isExtra(chunk: Record<string, unknown>, key: string): boolean {
  return key !== USAGE && !ENVELOPE.has(key) && chunk[key] !== null;
}

/** A chunk whose choices have ended: the one llama.cpp's timings belong on. */
function isLastChoiceChunk(chunk: Record<string, unknown>): boolean {
  const choices = chunk.choices;
  return (
    Array.isArray(choices) &&
    choices.length > 0 &&
    choices.every(
      (choice) => isObject(choice) && choice.finish_reason !== null && choice.finish_reason !== undefined,
    )
  );
}

/** Ollama's placeholder: a usage whose counts are all zero. */
function allZero(usage: Record<string, unknown>): boolean {
  return Object.values(usage).every((value) => value === 0 || value === null || isObject(value));
}

function without(data: Buffer, key: string): Buffer {
  const scan = scanJson(data, ANY_DEPTH);
  return scan.isObject ? editMembers(data, scan, new Map([[key, null]])) : data;
}

/** `target` with the members `keys` of `source` set, their values copied as `source` has them. */
function withMembersOf(target: Buffer, source: Buffer, keys: readonly string[]): Buffer {
  const from = scanJson(source, ANY_DEPTH);
  const edits = new Map<string, string | null>();
  for (const member of from.members) {
    if (keys.includes(member.key))
      edits.set(member.key, source.toString("utf8", member.valueStart, member.valueEnd));
  }
  const scan = scanJson(target, ANY_DEPTH);
  return scan.isObject ? editMembers(target, scan, edits) : target;
}
