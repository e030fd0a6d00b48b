// For a key limited to some models, the upstream's model list (GET /v1/models) is cut down to them, so a
// client discovers only what it may use. The list is held until it is complete, up to MAX_HELD_BYTES; a
// larger one is passed through unfiltered. FilteringModelList is the relay handler (relay-handler.ts) that
// does it, composed only for GET /v1/models of a key with a model list.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { withoutContentLength } from "./headers.js";
import { type Corkable, Decorator, handOn, type RelayHandler } from "./relay-handler.js";

/** Largest model list held back for filtering. */
export const MAX_HELD_BYTES = 4 << 20;

export class HeldModelList {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly allowed: readonly string[]) {}

  /** Holds a chunk; returns false once the list has grown too large to hold (the caller sends it on). */
  hold(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    return this.bytes <= MAX_HELD_BYTES;
  }

  /** What was held so far, to send on as it came. */
  release(): Buffer[] {
    const chunks = this.chunks;
    this.chunks = [];
    return chunks;
  }

  /** The complete list, filtered (or as it came, if it is not an OpenAI model list). */
  filtered(): Buffer {
    const body = Buffer.concat(this.chunks, this.bytes);
    return filterModelList(body, this.allowed) ?? body;
  }
}

/** Holds back a successful, uncompressed model list and sends it on filtered once it is complete. */
export class FilteringModelList extends Decorator {
  private held: HeldModelList | null = null;
  private status = 0;
  private headers: OutgoingHttpHeaders | null = null;
  private upstream: IncomingHttpHeaders | null = null;

  constructor(
    next: RelayHandler,
    private readonly allowed: readonly string[],
    private readonly socket: Corkable,
  ) {
    super(next);
  }

  override onResponseStart(
    status: number,
    headers: OutgoingHttpHeaders,
    upstream: IncomingHttpHeaders,
  ): void {
    // An error, or a compressed list, goes on as it came.
    if (status !== 200 || (upstream["content-encoding"] ?? "identity") !== "identity") {
      this.next.onResponseStart(status, headers, upstream);
      return;
    }
    this.held = new HeldModelList(this.allowed);
    this.status = status;
    this.headers = headers;
    this.upstream = upstream;
  }

  override onResponseData(chunk: Buffer): void {
    const held = this.held;
    if (held === null) {
      this.next.onResponseData(chunk);
      return;
    }
    if (held.hold(chunk)) return;
    // Too large to filter: what was held goes on as it came, with the upstream's headers, and the rest after it.
    this.held = null;
    this.next.onResponseStart(
      this.status,
      this.headers as OutgoingHttpHeaders,
      this.upstream as IncomingHttpHeaders,
    );
    handOn(this.next, held.release(), this.socket);
  }

  override onResponseEnd(): void {
    const held = this.held;
    if (held !== null) {
      this.held = null;
      const filtered = held.filtered();
      const headers = withoutContentLength(this.headers as OutgoingHttpHeaders);
      headers["content-length"] = filtered.length;
      this.next.onResponseStart(this.status, headers, this.upstream as IncomingHttpHeaders);
      this.next.onResponseData(filtered);
    }
    this.next.onResponseEnd();
  }
}

/** The list with only `allowed` models left, or null when the body is not an OpenAI model list. */
export function filterModelList(body: Buffer, allowed: readonly string[]): Buffer | null {
  let list: unknown;
  try {
    list = JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
  // Checked before reading `data`: a JSON null (or any non-object) is a valid body too.
  if (typeof list !== "object" || list === null) return null;
  const data = (list as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  const permitted = new Set(allowed);
  const filtered = data.filter((model) => permitted.has((model as { id?: unknown })?.id as string));
  return Buffer.from(JSON.stringify({ ...list, data: filtered }));
}

const MODEL_PATH = "/v1/models/";

/** The model named by GET /v1/models/{model}, which a key limited to other models may not look up. */
export function modelOfPath(path: string): string | null {
  if (!path.startsWith(MODEL_PATH) || path.length === MODEL_PATH.length) return null;
  try {
    return decodeURIComponent(path.slice(MODEL_PATH.length));
  } catch {
    return null;
  }
}
