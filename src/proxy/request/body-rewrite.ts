// The request body as forwarded. Most bodies go as the client sent them. A generation whose body sets no
// cap in the field the endpoint's servers read gets one — the reservation's cap — so that it cannot run
// to the model's context length, far past what was reserved; and a stream the gateway wants exact usage
// for gets stream_options.include_usage; where the model server reads a priority (upstream.priorityField), the
// request carries its key's or account's. Members are spliced into the client's bytes (json-scan.ts), never
// re-serialized: numbers, escapes and keys the client wrote reach the model server as they were.

import type { FieldPath } from "./endpoints.js";
import { editMembers, type JsonScan, scanJson } from "./json-scan.js";

/** A member to set, by its path from the body's root, to a JSON value text. */
export interface FieldEdit {
  path: FieldPath;
  value: string;
}

/** Depth for scanning parts of a body whose whole was already scanned within the configured bound. */
const ALREADY_BOUNDED = Number.MAX_SAFE_INTEGER;

/** `body` (an object, scanned as `scan`) with each edit's member set, nested objects created as needed. */
export function withFields(body: Buffer, scan: JsonScan, edits: readonly FieldEdit[]): Buffer {
  const top = new Map<string, string | null>();
  for (const { path, value } of edits) {
    const [key, ...rest] = path as [string, ...string[]];
    if (rest.length === 0) {
      top.set(key, value);
      continue;
    }
    const member = scan.members.findLast((m) => m.key === key);
    const current = member ? body.subarray(member.valueStart, member.valueEnd) : null;
    const nested = current && current[0] === 0x7b ? scanJson(current, ALREADY_BOUNDED) : null;
    top.set(
      key,
      nested?.isObject
        ? withFields(current as Buffer, nested, [{ path: rest, value }]).toString("utf8")
        : newObject(rest, value),
    );
  }
  return editMembers(body, scan, top);
}

/** `{"a":{"b":value}}` for the path [a, b]. */
function newObject(path: readonly string[], value: string): string {
  return path.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, value);
}

/**
 * The edits for a body: the cap target when the body leaves it unset, include_usage for a stream that does
 * not ask for its usage itself, and the request's priority at the model server where one is written
 * (upstream.priorityField), replacing any the client set.
 */
export function bodyEdits(
  capTarget: FieldPath | null,
  capTargetSet: boolean,
  cap: number,
  askUsage: boolean,
  priority: FieldEdit | null = null,
): FieldEdit[] {
  const edits: FieldEdit[] = [];
  if (capTarget !== null && !capTargetSet) edits.push({ path: capTarget, value: String(cap) });
  // Other stream options the client chose stay; a stream_options that is not an object is replaced.
  if (askUsage) edits.push({ path: ["stream_options", "include_usage"], value: "true" });
  if (priority !== null) edits.push(priority);
  return edits;
}
