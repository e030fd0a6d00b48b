// The OpenAPI 3.1 document of the admin API, generated from the route table and its zod schemas, so that
// it describes exactly what the router serves. Each operation names its action of the permission table in
// x-action (and the roles allowed in x-roles), which the permission test reads. `npm run openapi` writes it to src/admin/openapi.json, which
// is kept in the repository (a test keeps the two equal); the admin API serves it at /admin/v1/openapi.json.

import { z } from "zod";
import { PERMISSIONS, type Permission } from "../identity/permissions.js";
import { WebhookIdParam } from "./alert-schemas.js";
import * as P from "./people-schemas.js";
import type { Route } from "./route.js";
import { ROUTES } from "./routes.js";
import * as S from "./schemas.js";

const REF = (id: string) => `#/components/schemas/${id}`;
const PATH_PARAMETERS: Record<string, z.ZodType> = {
  accountId: S.AccountIdParam,
  keyId: S.KeyIdParam,
  webhookId: WebhookIdParam,
  userId: P.UserIdParam,
  tokenId: P.TokenIdParam,
  sessionId: P.SessionIdParam,
  invitationId: P.InvitationIdParam,
  providerId: P.ProviderIdParam,
};

/** Either credential: a bearer token, or the session cookie (with x-csrf-token on state-changing calls). */
const SIGNED_IN = [{ bearer: [] }, { session: [] }];

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // A schema with an id is a component of its own: refer to it.
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: REF(id) };
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  delete json.$defs;
  // Schemas with ids inside it come out as #/$defs/<id>; they are the document's components.
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/'));
}

function parameters(route: Route): JsonSchema[] {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: schemaOf(PATH_PARAMETERS[name as string] ?? S.AccountIdParam, "input"),
  }));
  const query = route.query ? (schemaOf(route.query, "input").properties as Record<string, JsonSchema>) : {};
  return [
    ...path,
    ...Object.entries(query).map(([name, schema]) => {
      const { description, ...rest } = schema;
      return { name, in: "query", required: false, description, schema: rest };
    }),
  ];
}

/** The first of a body schema's examples: what a reader of the document (or Swagger UI) is shown to send. */
function requestExample(body: z.ZodType): unknown {
  const examples = z.globalRegistry.get(body)?.examples;
  return Array.isArray(examples) ? examples[0] : undefined;
}

const ERROR_RESPONSES = {
  "400": "Invalid input; the message names the field",
  "401": "No credential, an unknown one, or an ended session",
  "403":
    "The credential's roles do not allow this (x-action, x-roles), or a cross-site call on the session cookie",
  "404": "No such account, key, member, token or other resource",
  "503": "Redis cannot be reached",
};

export function openApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    const errors = Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, description]) => [
        status,
        { description, content: { "application/json": { schema: { $ref: REF("Error") } } } },
      ]),
    );
    paths[route.path] ??= {};
    const permission: Permission = PERMISSIONS[route.action];
    (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      "x-action": route.action,
      "x-roles": permission.roles,
      security: route.action === "public" ? [] : route.action === "me.manage" ? [{ session: [] }] : SIGNED_IN,
      parameters: parameters(route),
      ...(route.body && {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: schemaOf(route.body, "input"),
              example: requestExample(route.body),
            },
          },
        },
      }),
      responses: {
        [String(route.status)]:
          route.status === 302
            ? {
                description: "Where the browser goes next",
                headers: { location: { schema: { type: "string" } } },
              }
            : {
                description: route.summary,
                content: route.csv
                  ? { "text/csv": { schema: { type: "string" } } }
                  : { "application/json": { schema: schemaOf(route.response, "output") } },
              },
        ...errors,
      },
    };
  }
  const components = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    uri: REF,
    unrepresentable: "any",
  }) as {
    schemas: Record<string, JsonSchema>;
  };
  const schemas = Object.fromEntries(
    Object.entries(components.schemas)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, schema]) => {
        const { $schema: _schema, $id: _id, ...rest } = schema;
        return [id, rest];
      }),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "tunnel-gateway admin API",
      version: "1",
      description:
        "Accounts, balances, API keys, usage, members and audit log of a tunnel-gateway. A person signs in (the /auth/ routes) and calls with the session cookie, echoing the session's CSRF token (GET /admin/v1/me) in x-csrf-token on state-changing calls; automation sends an API token as Authorization: Bearer (the legacy admin and account tokens too). Each operation's x-action and x-roles say who may call it (docs/sign-in.md). Amounts are rubles.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "tg_session",
          description: "__Host-tg_session when the dashboard is served over HTTPS (admin.externalUrl)",
        },
      },
      schemas,
    },
    security: SIGNED_IN,
    paths: {
      ...paths,
      "/admin/v1/openapi.json": {
        get: {
          operationId: "openApi",
          summary: "This document",
          security: [],
          responses: { "200": { description: "The OpenAPI document", content: { "application/json": {} } } },
        },
      },
    },
  };
}
