// The body as the model server gets it: a generation gets the cap its worst case assumed in the field its
// servers read, when it does not set that field itself; a stream the gateway wants usage for asks for it;
// where upstream.priorityField is set, the key's priority is written in. Edited in place of the fields, never
// re-serialized.

import type { Config } from "../../config/schema.js";
import type { RequestSharing } from "../../core/sharing.js";
import { bodyEdits, type FieldEdit, withFields } from "../request/body-rewrite.js";
import type { Endpoint, FieldPath } from "../request/endpoints.js";
import { type RequestFacts, valueAt } from "../request/request-facts.js";

export function forwardedBody(
  body: Buffer,
  facts: RequestFacts,
  endpoint: Endpoint,
  generation: boolean,
  cap: number,
  askUsage: boolean,
  priority: FieldEdit | null,
): Buffer {
  if (facts.json === null) return body;
  const target = generation ? capTargetOf(endpoint, facts.json.value) : null;
  const targetSet = target !== null && facts.capsSet.some((path) => path.join(".") === target.join("."));
  const edits = bodyEdits(target, targetSet, cap, askUsage, priority);
  return edits.length === 0 ? body : withFields(body, facts.json.scan, edits);
}

/**
 * Where upstream.priorityField is set: the edit that writes a request's priority into that field, replacing
 * whatever the client sent (a client may not choose its own priority). The gateway's priorities are lower
 * first; a higherFirst server (SGLang's default) gets them negated. Without a priority of its key or account,
 * a request carries the servers' default, 0.
 */
export function priorityWriter(
  upstream: Pick<Config["upstream"], "priorityField" | "priorityOrder">,
): ((sharing: RequestSharing) => FieldEdit) | null {
  const field = upstream.priorityField;
  if (field === undefined) return null;
  const path = field.split(".");
  const sign = upstream.priorityOrder === "higherFirst" ? -1 : 1;
  return (sharing) => ({ path, value: String(sign * (sharing.priority ?? 0) || 0) });
}

/** The first of the endpoint's cap targets whose enclosing object the body has, else the first. */
function capTargetOf(endpoint: Endpoint, body: Record<string, unknown>): FieldPath | null {
  const targets = endpoint.capTargets;
  const present = targets.find((path) => {
    const parent = path.length === 1 ? body : valueAt(body, path.slice(0, -1));
    return typeof parent === "object" && parent !== null && !Array.isArray(parent);
  });
  return present ?? targets[0] ?? null;
}
