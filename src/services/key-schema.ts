// A key as JSON, defined once as a zod schema: Key is everything its owner and operators see (the admin API's
// response schema and OpenAPI component), and each other audience's view is picked from it by a list in
// key-fields.ts — ClientKey at GET /v1/key, ListedKey in the CLI. The views' types are inferred from these
// schemas (services/views.ts, the dashboard's api/types.ts), and each audience's view is written by its
// schema's serializer (serializerFor), as fastify writes a reply through its response schema: one function
// builds a key's complete view, and the serializer leaves out what the audience's schema does not name. They
// live here, below the admin API, because the public listener and the CLI show keys too.

import { z } from "zod";
import { BudgetWindowView, period } from "../core/budget-window-schema.js";
import { deprecatedField } from "../core/deprecated-names.js";
import { isoTime } from "../core/time-schema.js";
import { CLIENT_KEY_FIELDS, fieldSerializer, LISTED_KEY_FIELDS } from "./key-fields.js";

/** What a key can do now; keyState (views.ts) decides which. */
export const KEY_STATES = ["active", "rotating", "disabled", "expired", "revoked"] as const;
export type KeyState = (typeof KEY_STATES)[number];

export const Limits = z
  .object({ rpm: z.number().nullable(), tpm: z.number().nullable(), max_parallel: z.number().nullable() })
  .meta({ id: "Limits", description: "The key's limits; null where it has none" });

/** The key's first window as `budget` showed it before keys had several: a window, and its old names. */
export const Budget = BudgetWindowView.extend({
  initial: z.number().meta(deprecatedField("amount")),
  reset_at: isoTime.meta(deprecatedField("resets_at")),
}).meta({ id: "Budget", ...deprecatedField("budgets[0]") });

export const KeySharing = z
  .object({
    priority: z.number().nullable().meta({
      description:
        "The priority its requests carry to the model server, lower first; null: its account's. Never more urgent than its account's",
    }),
    max_wait_ms: z.number().nullable().meta({
      description: "The longest its requests wait for their turn at a full model server; null: its account's",
    }),
  })
  .meta({
    id: "KeySharing",
    description: "How the key's requests share a full model server (docs/fair-sharing.md)",
  });

export const Key = z
  .object({
    id: z.string(),
    name: z.string(),
    account_id: z.string(),
    hint: z.string().meta({ description: "The key's last four characters" }),
    created_at: isoTime,
    expires_at: isoTime.nullable(),
    revoked_at: isoTime.nullable(),
    state: z.enum(KEY_STATES).meta({
      description:
        "active; rotating (its previous value works until grace_until); disabled (can be enabled); expired; revoked",
    }),
    grace_until: isoTime
      .nullable()
      .meta({ description: "While rotating: when the previous value stops working" }),
    disabled_at: isoTime.nullable(),
    allowed_models: z.array(z.string()).nullable(),
    log_bodies: z.boolean(),
    budget: Budget.nullable().meta(deprecatedField("budgets[0]")),
    budgets: z.array(BudgetWindowView).meta({
      description: "Every budget window (up to three, each period once); a request must fit in all of them",
    }),
    period: period,
    limits: Limits,
    alert_at: z
      .array(z.number())
      .nullable()
      .meta({ description: "Budget alert thresholds in percent; null: the gateway's defaults; []: none" }),
    currency: z.literal("RUB"),
    sharing: KeySharing,
  })
  .meta({ id: "Key" });

const only = <F extends string>(fields: readonly F[]) =>
  Object.fromEntries(fields.map((field) => [field, true])) as Record<F, true>;

/** What the key's own client sees (GET /v1/key). */
export const ClientKey = Key.pick(only(CLIENT_KEY_FIELDS));
/** What the CLI lists to the key's owner or an operator. */
export const ListedKey = Key.pick(only(LISTED_KEY_FIELDS));

/** The serializer of an object schema: a copy of exactly its fields, in its order, of a view holding more. */
export function serializerFor<S extends z.ZodObject>(schema: S): (view: z.output<S>) => z.output<S> {
  return fieldSerializer(Object.keys(schema.shape)) as (view: z.output<S>) => z.output<S>;
}
