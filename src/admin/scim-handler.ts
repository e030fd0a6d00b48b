// The SCIM 2.0 service at /scim/v2 on the admin listener (docs/scim.md): Users, Groups and the discovery
// documents, for a SCIM token only — every other credential is refused here, as a SCIM token is on the admin
// API. SCIM has its own discovery (ServiceProviderConfig, ResourceTypes, Schemas), its own error shape and
// its own credential, so its paths are served here rather than from the admin API's route table, and are not
// in openapi.json (docs/decisions.md).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { resourceTypes, schemas, serviceProviderConfig } from "../identity/scim/discovery.js";
import { listResponse, pageOf, project } from "../identity/scim/query.js";
import { asScimError } from "../identity/scim/resources.js";
import type { Scim } from "../identity/scim/scim.js";
import type { Actor } from "../store/audit/audit-store.js";
import { dashboardOrigin } from "./csrf.js";
import { scimBody, sendScim, sendScimError } from "./scim-http.js";

export const SCIM_PREFIX = "/scim/v2";

interface Answer {
  status: number;
  body?: unknown;
  location?: string;
}

export interface ScimHandler {
  /** Handles the request if its path is under /scim/v2; returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

function methodNotAllowed(method: string, path: string, allow: string): GatewayError {
  return new GatewayError("method_not_allowed", `${method} is not allowed on ${path}; use ${allow}.`, {
    fields: { allow },
  });
}

export function createScimHandler(scim: Scim, externalUrl: string | null, logger: Logger): ScimHandler {
  async function serve(req: IncomingMessage, url: URL): Promise<Answer> {
    const actor = await scim.tokens.authenticate(req.headers.authorization);
    const base = `${dashboardOrigin(req, externalUrl)}${SCIM_PREFIX}`;
    const rest = url.pathname.slice(SCIM_PREFIX.length).split("/").filter(Boolean);
    const [collection, id, extra] = rest.map((segment) => decodeSegment(segment, url.pathname));
    const method = req.method ?? "GET";
    const query = url.searchParams;
    if (extra !== undefined || collection === undefined)
      throw new GatewayError("not_found", `There is no SCIM resource at ${url.pathname}.`);
    const only = (allowed: string) => {
      if (!allowed.split(", ").includes(method)) throw methodNotAllowed(method, url.pathname, allowed);
    };
    switch (collection.toLowerCase()) {
      case "serviceproviderconfig":
        only("GET");
        return { status: 200, body: serviceProviderConfig(base) };
      case "resourcetypes":
        only("GET");
        return discovery(resourceTypes(base), id, url.pathname);
      case "schemas":
        only("GET");
        return discovery(schemas(base), id, url.pathname);
      case "users":
        return users(req, method, base, id, query, actor, url.pathname);
      case "groups":
        return groups(req, method, base, id, query, actor, url.pathname);
      default:
        throw new GatewayError("not_found", `There is no SCIM resource at ${url.pathname}.`);
    }
  }

  async function users(
    req: IncomingMessage,
    method: string,
    base: string,
    id: string | undefined,
    query: URLSearchParams,
    actor: Actor,
    path: string,
  ): Promise<Answer> {
    if (id === undefined) {
      if (method === "GET") {
        const list = await scim.users.list(base, query.get("filter") ?? undefined, pageOf(query));
        return { status: 200, body: projectList(list, query) };
      }
      if (method !== "POST") throw methodNotAllowed(method, path, "GET, POST");
      const created = await scim.users.create(base, await scimBody(req), actor);
      return { status: 201, body: created, location: `${base}/Users/${created.id}` };
    }
    switch (method) {
      case "GET":
        return { status: 200, body: project(await scim.users.get(base, id), query) };
      case "PUT":
        return { status: 200, body: await scim.users.replace(base, id, await scimBody(req), actor) };
      case "PATCH":
        return { status: 200, body: await scim.users.patch(base, id, await scimBody(req), actor) };
      case "DELETE":
        await scim.users.delete(id, actor);
        return { status: 204 };
      default:
        throw methodNotAllowed(method, path, "GET, PUT, PATCH, DELETE");
    }
  }

  async function groups(
    req: IncomingMessage,
    method: string,
    base: string,
    id: string | undefined,
    query: URLSearchParams,
    actor: Actor,
    path: string,
  ): Promise<Answer> {
    const withMembers = wantsMembers(query);
    if (id === undefined) {
      if (method === "GET") {
        const filter = query.get("filter") ?? undefined;
        const list = await scim.groups.list(base, filter, pageOf(query), withMembers);
        return { status: 200, body: projectList(list, query) };
      }
      if (method !== "POST") throw methodNotAllowed(method, path, "GET, POST");
      const created = await scim.groups.create(base, await scimBody(req), actor);
      return { status: 201, body: created, location: `${base}/Groups/${created.id}` };
    }
    switch (method) {
      case "GET":
        return { status: 200, body: project(await scim.groups.get(base, id, withMembers), query) };
      case "PUT":
        return { status: 200, body: await scim.groups.replace(base, id, await scimBody(req), actor) };
      case "PATCH":
        // Entra ID asks for 204 here: a group's whole membership is no answer to one change (Okta takes both).
        await scim.groups.patch(id, await scimBody(req), actor);
        return { status: 204 };
      case "DELETE":
        await scim.groups.delete(id, actor);
        return { status: 204 };
      default:
        throw methodNotAllowed(method, path, "GET, PUT, PATCH, DELETE");
    }
  }

  return {
    handle(req, res) {
      const url = new URL(req.url ?? "/", "http://admin.invalid");
      if (url.pathname !== SCIM_PREFIX && !url.pathname.startsWith(`${SCIM_PREFIX}/`)) return false;
      serve(req, url)
        .then((answer) => sendScim(res, answer.status, answer.body, answer.location))
        .catch((error: unknown) => {
          const failure = asGatewayError(asScimError(error));
          if (failure.status >= 500)
            logger.error({ path: url.pathname, err: failure.cause ?? failure }, "SCIM request failed");
          else if (failure.code === "scim_unauthorized") scim.events.publish("scim.token", "unauthorized");
          else {
            const event = changeOf(req.method ?? "GET", url.pathname);
            if (event !== null) scim.events.publish(event, "refused", { detail: failure.code });
          }
          const allow = failure.fields?.allow;
          sendScimError(res, failure, typeof allow === "string" ? allow : undefined);
        });
      return true;
    },
  };
}

/** The identity event a SCIM request that changes something is (refused ones are published too). */
type ScimChange = "scim.user.create" | "scim.user.update" | "scim.user.delete" | "scim.group.members";

function changeOf(method: string, path: string): ScimChange | null {
  if (method === "GET") return null;
  const collection = path.slice(SCIM_PREFIX.length).split("/")[1]?.toLowerCase();
  const one = path.slice(SCIM_PREFIX.length).split("/").filter(Boolean).length > 1;
  if (collection === "groups") return "scim.group.members";
  if (collection !== "users") return null;
  if (method === "POST") return one ? null : "scim.user.create";
  if (method === "DELETE") return "scim.user.delete";
  return "scim.user.update";
}

function decodeSegment(segment: string, path: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new GatewayError("not_found", `There is no SCIM resource at ${path}.`);
  }
}

function discovery(all: Record<string, unknown>[], id: string | undefined, path: string): Answer {
  if (id === undefined)
    return { status: 200, body: listResponse(all, all.length, { startIndex: 1, count: all.length }) };
  const found = all.find((item) => item.id === id);
  if (!found) throw new GatewayError("not_found", `There is no SCIM resource at ${path}.`);
  return { status: 200, body: found };
}

/** Members are left out where the client asks (Entra ID: excludedAttributes=members). */
function wantsMembers(query: URLSearchParams): boolean {
  const names = (value: string | null) =>
    (value ?? "")
      .toLowerCase()
      .split(",")
      .map((name) => name.trim());
  if (names(query.get("excludedAttributes")).includes("members")) return false;
  const only = query.get("attributes");
  return only === null || names(only).includes("members");
}

function projectList(list: Record<string, unknown>, query: URLSearchParams): Record<string, unknown> {
  const resources = list.Resources as Record<string, unknown>[];
  return { ...list, Resources: resources.map((resource) => project(resource, query)) };
}
