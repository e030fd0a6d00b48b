// Serves the route table: matches method and path (templates compiled once), identifies the caller,
// applies the route's access rule, validates query and body against the route's schemas — refusing
// unknown fields and naming what is wrong — and writes the handler's answer as JSON.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { z } from "zod";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { readBody } from "../http/body.js";
import { sendCsv, sendError, sendJson } from "../http/respond.js";
import type { AdminCredentials } from "./credentials.js";
import { type AdminServices, authorize, type Route } from "./route.js";

const MAX_BODY_BYTES = 64 * 1024;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
}

export interface AdminRouter {
  /** Handles the request if it is an admin API path; returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createAdminRouter(
  routes: readonly Route[],
  credentials: AdminCredentials,
  services: AdminServices,
  logger: Logger,
): AdminRouter {
  const compiled = routes.map(compile);

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, search: URLSearchParams) {
    const matches = compiled.filter((c) => c.pattern.test(path));
    if (matches.length === 0) throw new GatewayError("not_found", `There is no admin API route ${path}.`);
    const match = matches.find((c) => c.route.method === req.method);
    if (!match) {
      const allow = matches.map((c) => c.route.method).join(", ");
      res.setHeader("allow", allow);
      throw new GatewayError("method_not_allowed", `${req.method} is not allowed on ${path}; use ${allow}.`);
    }
    const { route } = match;
    const values = match.pattern.exec(path)?.slice(1) ?? [];
    const params = Object.fromEntries(
      match.params.map((name, i) => [name, decodePathSegment(values[i] as string)]),
    );

    const principal = await credentials.identify(req.headers.authorization);
    authorize(route, principal, params);
    const query = validate(route.query, Object.fromEntries(search), "query") as Record<
      string,
      string | undefined
    >;
    const body = route.body ? validate(route.body, await jsonBody(req), "body") : undefined;
    const call = { principal, params, query, body, services };
    const result = await route.handle(call);
    if (route.csv) sendCsv(res, route.status, result as string, route.csv(call));
    else sendJson(res, route.status, result);
  }

  return {
    handle(req, res) {
      const url = new URL(req.url ?? "/", "http://admin.invalid");
      if (!url.pathname.startsWith("/admin/v1/")) return false;
      serve(req, res, url.pathname, url.searchParams).catch((error: unknown) => {
        const failure = asGatewayError(error);
        if (failure.status >= 500)
          logger.error({ path: url.pathname, err: failure.cause ?? failure }, "admin API failed");
        sendError(res, failure);
      });
      return true;
    },
  };
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new GatewayError(
      "invalid_request",
      `The path segment ${JSON.stringify(segment)} is not valid percent-encoding.`,
    );
  }
}

function compile(route: Route): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
    .replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
      params.push(name);
      return "([^/]+)";
    });
  return { route, pattern: new RegExp(`^${source}$`), params };
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  // No body at all is an empty object: `POST …/rotate` needs nothing, and a route that does need fields
  // names the missing ones.
  const length = req.headers["content-length"];
  if (length === "0" || (length === undefined && req.headers["transfer-encoding"] === undefined)) return {};
  const type = req.headers["content-type"] ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    throw new GatewayError("invalid_request", "Send the body as JSON with Content-Type: application/json.");
  }
  const bytes = await readBody(req, MAX_BODY_BYTES);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new GatewayError("invalid_request", "The body is not valid JSON.");
  }
}

function validate(schema: z.ZodType | undefined, value: unknown, where: "query" | "body"): unknown {
  if (!schema) {
    if (where === "query" && Object.keys(value as object).length > 0) {
      throw new GatewayError(
        "invalid_request",
        `This route takes no query parameters; got ${Object.keys(value as object).join(", ")}.`,
      );
    }
    return value;
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys")
      return `unknown ${where === "body" ? "field" : "parameter"} ${issue.keys.join(", ")}`;
    const path = issue.path.join(".");
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw new GatewayError("invalid_request", `Invalid ${where}: ${problems.join("; ")}.`);
}
