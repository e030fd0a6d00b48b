// For a key limited to some models, the upstream's model list (GET /v1/models) is cut down to them, so a
// client discovers only what it may use.

/** The list with only `allowed` models left, or null when the body is not an OpenAI model list. */
export function filterModelList(body: Buffer, allowed: readonly string[]): Buffer | null {
  let list: unknown;
  try {
    list = JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
  const data = (list as { data?: unknown }).data;
  if (typeof list !== "object" || list === null || !Array.isArray(data)) return null;
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
