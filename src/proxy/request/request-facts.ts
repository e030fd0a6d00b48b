// What the gateway needs to know about a request body before it reserves anything: the model (from a JSON
// body, a multipart form as audio uploads send it, or a urlencoded form), the output caps and choices it
// asks for — refused when they are not what every model server reads as a limit — whether it streams, and
// how large its prompt can be (text by its bytes, media parts by count). A body whose model cannot be
// determined is reported as such, so that a key with a model list can refuse it (fail closed). A body that is
// not what its endpoint takes — JSON that does not parse, a multipart form that does not — is refused here,
// before anything is reserved: no model server could read it, so it is never forwarded or charged.

import { Readable } from "node:stream";
import { Busboy, type BusboyInstance } from "@fastify/busboy";
import type { PromptSize } from "../../billing/estimate.js";
import { GatewayError } from "../../core/errors.js";
import type { ModelCheck } from "../../core/model-check.js";
import type { Endpoint, FieldPath } from "./endpoints.js";
import { type JsonScan, scanJson } from "./json-scan.js";

export interface RequestFacts {
  model: ModelCheck;
  /** The largest output cap the body sets (all of them valid), or null when it sets none. */
  maxOutputTokens: number | null;
  /** Which cap fields the body sets (to anything but null). */
  capsSet: readonly FieldPath[];
  /** Completions asked for: the largest of the endpoint's choice fields (n, best_of), 1 by default. */
  choices: number;
  stream: boolean;
  /** The body already asks a stream for its usage (stream_options.include_usage: true). */
  asksForUsage: boolean;
  /** The body asks for vLLM's usage on every chunk (stream_options.continuous_usage_stats: true). */
  continuousUsage: boolean;
  prompt: PromptSize;
  /** A JSON object body, parsed, with its scan for rewriting it without re-serializing. */
  json: { value: Record<string, unknown>; scan: JsonScan } | null;
}

export interface RequestLimits {
  maxJsonDepth: number;
  maxChoices: number;
}

/** The largest value a cap may have: model servers in C++ and Go read caps as 32-bit integers. */
export const MAX_CAP = 2_147_483_647;
/** Caps an unknown endpoint may set, read (not checked) so that its worst case allows for them. */
const GENERIC_CAPS: readonly FieldPath[] = [["max_completion_tokens"], ["max_tokens"], ["max_output_tokens"]];
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

export async function inspectRequest(
  body: Buffer,
  contentType: string | undefined,
  endpoint: Endpoint,
  limits: RequestLimits,
): Promise<RequestFacts> {
  const empty = { textBytes: body.length, images: 0, audio: 0, video: 0 };
  if (body.length === 0) return factsOf({}, null, endpoint, limits, empty, { kind: "none" });
  const type = contentType?.toLowerCase() ?? "";
  if (type.startsWith("multipart/form-data")) {
    const form = await multipartForm(body, contentType as string);
    if (form.problem !== null) {
      throw new GatewayError(
        "invalid_request",
        `The request body is not a valid multipart form: ${form.problem}.`,
      );
    }
    // An uploaded file is audio (transcriptions, translations) sized like an audio part, not by its bytes.
    const prompt = { ...empty, textBytes: body.length - form.fileBytes, audio: form.files };
    return factsOf(form.fields, null, endpoint, limits, prompt);
  }
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const fields = Object.fromEntries(new URLSearchParams(body.toString("utf8")));
    return factsOf(fields, null, endpoint, limits, empty);
  }
  // Model servers built on FastAPI read JSON whatever the content type says, so the gateway does too.
  const scan = scanJson(body, limits.maxJsonDepth);
  if (scan.depth > limits.maxJsonDepth) {
    throw new GatewayError(
      "invalid_request",
      `The request body nests deeper than ${limits.maxJsonDepth} levels, the most the gateway accepts.`,
    );
  }
  let parsed: unknown;
  const text = body.toString("utf8");
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (takesJson(endpoint, type)) throw notJson(error, text.length);
    return factsOf({}, null, endpoint, limits, empty, UNKNOWN);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !scan.isObject) {
    return factsOf({}, null, endpoint, limits, empty, UNKNOWN);
  }
  const value = parsed as Record<string, unknown>;
  const prompt = endpoint.class === "generation" ? promptSize(value, body.length) : empty;
  return factsOf(value, { value, scan }, endpoint, limits, prompt);
}

/**
 * Whether a body that does not parse as JSON is refused: on every endpoint of the table that reads JSON (all
 * of generation, input-only and free do, whatever the content type says), and on any other whose content
 * type says JSON. An unknown endpoint's body of another type is the model server's to read.
 */
function takesJson(endpoint: Endpoint, type: string): boolean {
  return endpoint.class !== "other" || type.includes("json");
}

/**
 * The refusal of a body JSON.parse refused. Its message is not passed on as it is: V8 quotes the start of the
 * text in some of them, and a body may hold secrets that have no place in a log line.
 */
function notJson(error: unknown, length: number): GatewayError {
  const message = error instanceof Error ? error.message : "";
  const at = /at position (\d+)/.exec(message);
  const detail =
    message.startsWith("Unexpected end") || (at !== null && Number(at[1]) >= length)
      ? "it ends before the JSON text does (was it cut short?)"
      : at !== null
        ? `the error is at character ${at[1]}`
        : "it has an unexpected character";
  return new GatewayError("invalid_request", `The request body is not valid JSON: ${detail}.`);
}

/** The facts of a body's fields: a JSON object's (with `json`), or a form's (`json` null, values as text). */
function factsOf(
  fields: Record<string, unknown>,
  json: RequestFacts["json"],
  endpoint: Endpoint,
  limits: RequestLimits,
  prompt: PromptSize,
  model?: ModelCheck,
): RequestFacts {
  const named = fields.model;
  const checked = endpoint.class === "generation";
  const caps = checked ? endpoint.caps : endpoint.class === "other" ? GENERIC_CAPS : [];
  let maxOutputTokens: number | null = null;
  const capsSet: FieldPath[] = [];
  for (const field of caps) {
    const raw = valueAt(fields, field);
    if (raw === undefined || raw === null) continue;
    const cap = checked ? countAt(raw, field, MAX_CAP, json === null) : lenientCount(raw);
    if (cap === null) continue;
    capsSet.push(field);
    if (maxOutputTokens === null || cap > maxOutputTokens) maxOutputTokens = cap;
  }
  let choices = 1;
  for (const field of endpoint.choices) {
    const raw = valueAt(fields, field);
    if (raw === undefined || raw === null) continue;
    choices = Math.max(choices, countAt(raw, field, limits.maxChoices, json === null));
  }
  const options = fields.stream_options as
    | { include_usage?: unknown; continuous_usage_stats?: unknown }
    | undefined;
  const streamOptions = typeof options === "object" && options !== null;
  return {
    model:
      model ?? (typeof named === "string" && named.length > 0 ? { kind: "named", model: named } : UNKNOWN),
    maxOutputTokens,
    capsSet,
    choices,
    stream: fields.stream === true || fields.stream === "true",
    asksForUsage: streamOptions && options.include_usage === true,
    continuousUsage: streamOptions && options.continuous_usage_stats === true,
    prompt,
    json,
  };
}

/**
 * A cap or a number of choices as a positive integer up to `max`, from a JSON number (or, in a form, its
 * text); anything else is refused, naming the field: a model server reads -1 as "no limit", and a string, a
 * fraction or an absurd number as whatever its parser makes of it.
 */
function countAt(raw: unknown, field: FieldPath, max: number, form: boolean): number {
  const value = form && typeof raw === "string" && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= max) return value;
  const shown = JSON.stringify(raw) ?? String(raw);
  throw new GatewayError(
    "invalid_request",
    `${field.join(".")} must be a whole number from 1 to ${max}; got ${shown.length > 40 ? `${shown.slice(0, 37)}...` : shown}.`,
  );
}

function lenientCount(raw: unknown): number | null {
  return typeof raw === "number" && Number.isSafeInteger(raw) && raw > 0 ? raw : null;
}

export function valueAt(fields: Record<string, unknown>, path: FieldPath): unknown {
  let node: unknown = fields;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Part types that carry an image, audio or video, across OpenAI's, Anthropic's, vLLM's and Ollama's shapes. */
const MEDIA_KIND: Readonly<Record<string, keyof Omit<PromptSize, "textBytes">>> = {
  image_url: "images",
  input_image: "images",
  image: "images",
  image_embeds: "images",
  input_audio: "audio",
  audio_url: "audio",
  audio: "audio",
  video_url: "video",
  input_video: "video",
  video: "video",
};

/** Top-level fields that hold the prompt: chat and Anthropic messages, Responses input, Ollama's prompt. */
const PROMPT_FIELDS = ["messages", "input", "prompt", "system", "images"];

/**
 * The prompt's size: the body's bytes less the media data, and the media parts by kind. A data URL of an
 * image is megabytes that become a few thousand tokens; a link to one is a few bytes that become as many.
 * Walks the prompt's objects and arrays (bounded in depth by the scan; tools and schemas are left alone);
 * Ollama's native API carries images as a list of base64 strings under `images`.
 */
function promptSize(body: Record<string, unknown>, bodyBytes: number): PromptSize {
  const size: PromptSize = { textBytes: bodyBytes, images: 0, audio: 0, video: 0 };
  const walk = (node: unknown, key: string): void => {
    if (Array.isArray(node)) {
      if (key === "images") {
        for (const image of node) {
          if (typeof image !== "string") continue;
          size.images++;
          size.textBytes -= image.length;
        }
        return;
      }
      for (const item of node) walk(item, "");
      return;
    }
    if (typeof node !== "object" || node === null) return;
    const record = node as Record<string, unknown>;
    const kind = typeof record.type === "string" ? MEDIA_KIND[record.type] : undefined;
    if (kind !== undefined) {
      size[kind]++;
      for (const name in record) if (name !== "type") size.textBytes -= stringBytes(record[name]);
      return;
    }
    for (const name in record) walk(record[name], name);
  };
  for (const field of PROMPT_FIELDS) walk(body[field], field);
  size.textBytes = Math.max(0, size.textBytes);
  return size;
}

/** Bytes of the strings within a value (base64 and URLs are ASCII: characters are bytes). */
function stringBytes(node: unknown): number {
  if (typeof node === "string") return node.length;
  if (typeof node !== "object" || node === null) return 0;
  let total = 0;
  for (const value of Object.values(node)) total += stringBytes(value);
  return total;
}

interface Form {
  fields: Record<string, string>;
  files: number;
  fileBytes: number;
  /** What is wrong with the form, or null when it parsed to its end. */
  problem: string | null;
}

function multipartForm(body: Buffer, contentType: string): Promise<Form> {
  return new Promise((resolve) => {
    const form: Form = { fields: {}, files: 0, fileBytes: 0, problem: null };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: { "content-type": contentType }, limits: { fieldSize: 1024 } });
    } catch (error) {
      form.problem = (error instanceof Error ? error.message : String(error)).toLowerCase();
      resolve(form);
      return;
    }
    // A part cut short errs on the part's stream as well as on the parser: without a listener on each, the
    // process would crash on an unhandled 'error'. The first problem is the one reported.
    const failed = (error: Error) => {
      form.problem ??= error.message.charAt(0).toLowerCase() + error.message.slice(1);
    };
    parser.on("field", (name: string, value: string) => {
      if (FORM_FIELDS.has(name) && !(name in form.fields)) form.fields[name] = value;
    });
    parser.on("file", (_name: string, file: NodeJS.ReadableStream) => {
      form.files++;
      file.on("data", (chunk: Buffer) => {
        form.fileBytes += chunk.length;
      });
      file.on("error", failed);
    });
    parser.on("error", (error: Error) => {
      failed(error);
      resolve(form);
    });
    parser.on("finish", () => resolve(form));
    Readable.from([body]).pipe(parser);
  });
}
