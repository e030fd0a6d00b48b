// One linear pass over a JSON text as bytes, before anything else reads it: how deeply it nests (a body
// nested 100 000 levels deep parses, but every recursive walk over it — JSON.stringify included — overflows
// the stack), and where the members of the top-level object lie, so that the gateway can change one member
// of a body, or drop one from a streamed chunk, without re-serializing the rest. Re-serializing would
// change bytes the client chose (number forms, escapes, integers above 2^53, duplicate keys) and cost time
// proportional to the whole document.
//
// The scan does not validate JSON: JSON.parse does that. It only relies on what holds in any JSON text —
// structural characters are ASCII, and outside strings they mean what they say — so a text that is not
// JSON gives spans nobody uses. String contents are skipped with Buffer.indexOf (memchr), so a typical
// request, mostly message text, costs little more than finding its quotes.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** One member of the top-level object: byte offsets into the scanned text. */
export interface MemberSpan {
  /** The key as JSON text decodes it. */
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  /** Offset of the value's first byte. */
  valueStart: number;
  /** Offset just past the value's last byte. */
  valueEnd: number;
}

export interface JsonScan {
  /** Deepest nesting of objects and arrays (0 for a scalar). */
  depth: number;
  /** Members of the top-level object in order (empty when the text is not an object, or too deep). */
  members: MemberSpan[];
  /** Whether the text is an object whose closing brace was found. */
  isObject: boolean;
}

/**
 * Scans `text`; stops early, with `depth` = maxDepth + 1, as soon as nesting passes `maxDepth`, so a
 * hostile document costs no more than the bytes up to that point.
 */
export function scanJson(text: Buffer, maxDepth: number): JsonScan {
  const members: MemberSpan[] = [];
  let depth = 0;
  let deepest = 0;
  let isObject = false;
  const topIsObject = firstNonSpace(text) === OPEN_OBJECT;
  // Within the top-level object: the member being read.
  let key: string | null = null;
  let keyStart = -1;
  let valueStart = -1;
  let expectKey = true;

  for (let i = 0; i < text.length; i++) {
    const c = text[i] as number;
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (topIsObject && depth === 1) {
        if (expectKey) {
          keyStart = i;
          key = decodeKey(text, i, end);
        } else if (valueStart === -1) valueStart = i;
      }
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (topIsObject && depth === 1 && !expectKey && valueStart === -1) valueStart = i;
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > maxDepth) return { depth: deepest, members: [], isObject: false };
      }
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (topIsObject && depth === 0 && c === CLOSE_OBJECT && !isObject) {
        pushMember(text, members, key, keyStart, valueStart, i);
        isObject = true;
      }
      continue;
    }
    if (!topIsObject || depth !== 1) continue;
    if (c === COLON) {
      expectKey = false;
    } else if (c === COMMA) {
      pushMember(text, members, key, keyStart, valueStart, i);
      key = null;
      valueStart = -1;
      expectKey = true;
    } else if (!expectKey && valueStart === -1 && !isSpace(c)) {
      valueStart = i;
    }
  }
  return { depth: deepest, members, isObject };
}

function pushMember(
  text: Buffer,
  members: MemberSpan[],
  key: string | null,
  start: number,
  valueStart: number,
  end: number,
): void {
  if (key === null || valueStart === -1) return;
  let valueEnd = end;
  while (valueEnd > valueStart && isSpace(text[valueEnd - 1] as number)) valueEnd--;
  members.push({ key, start, valueStart, valueEnd });
}

/** Offset of the quote that closes the string opening at `open` (or the last offset, if it never closes). */
function stringEnd(text: Buffer, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf(QUOTE, at + 1);
    if (at === -1) return text.length - 1;
    // A quote preceded by an odd number of backslashes is escaped.
    let slashes = 0;
    while (text[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

function decodeKey(text: Buffer, open: number, close: number): string {
  const raw = text.toString("utf8", open + 1, close);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function firstNonSpace(text: Buffer): number | undefined {
  for (let i = 0; i < text.length; i++) if (!isSpace(text[i] as number)) return text[i];
  return undefined;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The object `text` with its top-level members edited, as `edits` says per key: a new JSON value text, or
 * null to remove the member. Members that exist keep their place (every occurrence, should a key be
 * duplicated, gets the same edit); keys not found are appended at the end. Every byte of the members left
 * alone is copied as it was; only the whitespace between members may change. `scan` must be the scan of
 * `text`, and `text` an object.
 */
export function editMembers(text: Buffer, scan: JsonScan, edits: ReadonlyMap<string, string | null>): Buffer {
  const parts: Buffer[] = [OPEN];
  const absent = new Map(edits);
  let empty = true;
  const separate = () => {
    if (!empty) parts.push(SEPARATOR);
    empty = false;
  };
  for (const member of scan.members) {
    const edit = edits.get(member.key);
    absent.delete(member.key);
    if (edit === null) continue;
    separate();
    if (edit === undefined) parts.push(text.subarray(member.start, member.valueEnd));
    else parts.push(text.subarray(member.start, member.valueStart), Buffer.from(edit));
  }
  for (const [key, value] of absent) {
    if (value === null) continue;
    separate();
    parts.push(Buffer.from(`${JSON.stringify(key)}:${value}`));
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const OPEN = Buffer.from("{");
const CLOSE = Buffer.from("}");
const SEPARATOR = Buffer.from(",");
