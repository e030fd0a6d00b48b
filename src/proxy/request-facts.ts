// What the gateway needs to know about a request body before it forwards it: the model (from a JSON body,
// a multipart form as audio uploads send it, or a urlencoded form), how much output it may produce, and
// whether it is a stream. A body whose model cannot be determined is reported as such, so that a key with
// a model list can refuse it (fail closed) rather than let it reach the upstream's default model.

import { Readable } from "node:stream";
import { Busboy, type BusboyInstance } from "@fastify/busboy";
import type { ModelCheck } from "../store/billing-store.js";

export interface RequestFacts {
  model: ModelCheck;
  /**
   * The largest output cap among max_completion_tokens, max_tokens and max_output_tokens, when the body
   * sets one: model servers differ in which they read (TGI and llama.cpp read only max_tokens), so the
   * worst case must allow for the largest.
   */
  maxOutputTokens: number | null;
  /** Whether the body sets any output cap field to something other than null (valid or not). */
  outputCapSet: boolean;
  /** Completions asked for (n, or best_of for text completions): the worst case multiplies by it. */
  choices: number;
  stream: boolean;
  /** The parsed body when it is a JSON object (needed to add stream_options). */
  json: Record<string, unknown> | null;
}

const NO_BODY: RequestFacts = {
  model: { kind: "none" },
  maxOutputTokens: null,
  outputCapSet: false,
  choices: 1,
  stream: false,
  json: null,
};
const OUTPUT_CAPS = ["max_completion_tokens", "max_tokens", "max_output_tokens"] as const;
const UNKNOWN: ModelCheck = { kind: "unknown" };
/** Form fields read from multipart bodies; everything else (files included) is skipped. */
const FORM_FIELDS = new Set([
  "model",
  "max_tokens",
  "max_completion_tokens",
  "max_output_tokens",
  "n",
  "best_of",
  "stream",
]);

export async function inspectRequest(body: Buffer, contentType: string | undefined): Promise<RequestFacts> {
  if (body.length === 0) return NO_BODY;
  const type = contentType?.toLowerCase() ?? "";
  if (type.startsWith("multipart/form-data"))
    return fromFields(await multipartFields(body, contentType as string), null);
  if (type.startsWith("application/x-www-form-urlencoded")) {
    return fromFields(Object.fromEntries(new URLSearchParams(body.toString("utf8"))), null);
  }
  // Model servers built on FastAPI read JSON whatever the content type says, so the gateway does too.
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { ...NO_BODY, model: UNKNOWN };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { ...NO_BODY, model: UNKNOWN };
  return fromFields(parsed as Record<string, unknown>, parsed as Record<string, unknown>);
}

function fromFields(fields: Record<string, unknown>, json: Record<string, unknown> | null): RequestFacts {
  const model = fields.model;
  return {
    model: typeof model === "string" && model.length > 0 ? { kind: "named", model } : UNKNOWN,
    maxOutputTokens: OUTPUT_CAPS.reduce<number | null>((largest, field) => {
      const cap = count(fields[field]);
      return cap !== null && (largest === null || cap > largest) ? cap : largest;
    }, null),
    outputCapSet: OUTPUT_CAPS.some((field) => fields[field] !== undefined && fields[field] !== null),
    choices: Math.max(count(fields.n) ?? 1, count(fields.best_of) ?? 1),
    stream: fields.stream === true || fields.stream === "true",
    json,
  };
}

/** A positive integer from a JSON number or form text; anything else counts as absent. */
function count(value: unknown): number | null {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : null;
}

function multipartFields(body: Buffer, contentType: string): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    const fields: Record<string, string> = {};
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: { "content-type": contentType }, limits: { fieldSize: 1024 } });
    } catch {
      resolve(fields);
      return;
    }
    parser.on("field", (name: string, value: string) => {
      if (FORM_FIELDS.has(name) && !(name in fields)) fields[name] = value;
    });
    parser.on("file", (_name: string, file: NodeJS.ReadableStream) => file.resume());
    parser.on("finish", () => resolve(fields));
    // A malformed form has no model we could trust: whatever was read so far stands, the rest is unknown.
    parser.on("error", () => resolve(fields));
    Readable.from([body]).pipe(parser);
  });
}
