// SCIM's HTTP plumbing: reading a body (SCIM JSON or JSON, at most 1 MiB, nested at most 32 deep) and writing
// answers as application/scim+json, errors in SCIM's shape (RFC 7644 §3.12: schemas, status as a string,
// scimType, detail) with the status of our error table.

import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayError } from "../core/errors.js";
import { readBody } from "../http/body.js";
import { ERROR_SCHEMA } from "../identity/scim/resources.js";

/** The largest body a SCIM client may send: a group's whole membership in one PUT or PATCH fits. */
export const MAX_SCIM_BODY_BYTES = 1024 * 1024;
/** SCIM resources nest four levels at most; deeper is not a resource. */
const MAX_DEPTH = 32;

export function sendScim(res: ServerResponse, status: number, body: unknown, location?: string): void {
  if (body === undefined) {
    res.writeHead(status, { "cache-control": "no-store" });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/scim+json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...(location !== undefined && { location }),
  });
  res.end(text);
}

/** A SCIM error: 401s say how to authenticate, 405s what is allowed. */
export function sendScimError(res: ServerResponse, error: GatewayError, allow?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const scimType = error.fields?.scimType;
  const text = JSON.stringify({
    schemas: [ERROR_SCHEMA],
    status: String(error.status),
    ...(typeof scimType === "string" && { scimType }),
    detail: error.message,
  });
  res.writeHead(error.status, {
    "content-type": "application/scim+json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...(error.status === 401 && { "www-authenticate": 'Bearer realm="tunnel-gateway SCIM"' }),
    ...(allow !== undefined && { allow }),
  });
  res.end(text);
}

function invalidSyntax(message: string): GatewayError {
  return new GatewayError("invalid_request", message, { fields: { scimType: "invalidSyntax" } });
}

/** The deepest nesting of a parsed JSON value, walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== "object" || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

export async function scimBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  if (!type.startsWith("application/scim+json") && !type.startsWith("application/json"))
    throw invalidSyntax("Send the body as JSON with Content-Type: application/scim+json.");
  const bytes = await readBody(req, MAX_SCIM_BODY_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw invalidSyntax("The body is not valid JSON.");
  }
  if (depthOf(body) > MAX_DEPTH)
    throw invalidSyntax(`The body nests deeper than ${MAX_DEPTH} levels; a SCIM resource never does.`);
  return body;
}
