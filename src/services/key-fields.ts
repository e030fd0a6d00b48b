// Which of a key's fields each audience sees, as plain lists, and the serializer that writes exactly a list's
// fields. Nothing is imported here, so that the dashboard's bundle can use the lists as they are (its copy of
// what a key's client gets) without zod or the server's code; the zod schemas in key-schema.ts pick the same
// lists from the one Key schema, so the page and the server cannot disagree.

/**
 * What a key's own client sees at GET /v1/key, in this order. An allow-list: a field added to the Key schema
 * (what the key's owner and operators see) stays out of the client's view until it is named here.
 */
export const CLIENT_KEY_FIELDS = [
  "id",
  "name",
  "account_id",
  "created_at",
  "expires_at",
  "allowed_models",
  "log_bodies",
  "budget",
  "budgets",
  "currency",
  "state",
  "grace_until",
  "disabled_at",
  "limits",
] as const;

/** What the CLI lists to the key's owner or an operator: the client's fields and when the key was revoked. */
export const LISTED_KEY_FIELDS = [...CLIENT_KEY_FIELDS, "revoked_at"] as const;

/**
 * A function that copies exactly `fields` of a value, in their order, and nothing else — what fastify's
 * serializer does with a reply and its response schema: an object holding more (the complete view of a key)
 * can be handed to an audience that may see less.
 */
export function fieldSerializer<const F extends string>(fields: readonly F[]) {
  return <T extends Record<F, unknown>>(value: T): Pick<T, F> => {
    const view = {} as Pick<T, F>;
    for (const field of fields) view[field] = value[field];
    return view;
  };
}
