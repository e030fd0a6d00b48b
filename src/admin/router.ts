// Serves the route table: matches method and path (templates compiled once), identifies the caller (bearer
// token or session cookie), refuses cross-site requests (csrf.ts), applies the permission table to the
// route's action, validates query and body against the route's schemas — refusing unknown fields and naming
// what is wrong — and writes the handler's answer: JSON, CSV or a redirect.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { z } from "zod";
import { asGatewayError, GatewayError } from "../core/errors.js";
import { readBody } from "../http/body.js";
import { sendCsv, sendError, sendJson } from "../http/respond.js";
import { anonymous, authorize, type Principal } from "../identity/principal.js";
import { RequestFailures } from "../observability/request-failures.js";
import { type CookieNames, cookie, cookieNames, readCookies } from "./cookies.js";
import { assertCsrf, assertSameOrigin, changesState, dashboardOrigin } from "./csrf.js";
import type { AdminServices, Call, Exchange, Redirect, Route } from "./route.js";

const MAX_BODY_BYTES = 64 * 1024;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
}

export interface AdminRouter {
  /** Handles the request if it is an admin API or sign-in path; returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

export interface RouterOptions {
  /** The client's address, for the sign-in limits and the sessions list. */
  clientAddress(req: IncomingMessage): string;
  /** How a 5xx of its own is logged: once per Redis outage, per request for a bug (the replica's one). */
  failures?: Pick<RequestFailures, "failed">;
}

/** The paths the router answers: the admin API and the sign-in flow. */
const PREFIXES = ["/admin/v1/", "/auth/"];

export function createAdminRouter(
  routes: readonly Route[],
  services: AdminServices,
  logger: Logger,
  options: RouterOptions = { clientAddress: (req) => req.socket.remoteAddress ?? "" },
): AdminRouter {
  const compiled = routes.map(compile);
  const failures = options.failures ?? new RequestFailures(logger);
  const { credentials, settings } = services.identity;
  const names = cookieNames(settings.externalUrl);

  /** The caller: a bearer token wins over the session cookie (and is never a cross-site risk). */
  async function identify(req: IncomingMessage, cookies: ReadonlyMap<string, string>): Promise<Principal> {
    if (req.headers.authorization !== undefined) return credentials.fromBearer(req.headers.authorization);
    const id = cookies.get(names.session);
    if (id !== undefined && id !== "") return credentials.fromSession(id);
    throw new GatewayError("admin_unauthorized");
  }

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

    const cookies = readCookies(req);
    const origin = dashboardOrigin(req, settings.externalUrl);
    let principal: Principal;
    if (route.action === "public") {
      // Signing in needs no credential (one that is there, a person accepting an invitation, is used), and
      // no CSRF token, which a browser signing in has not got yet: the origin check alone.
      principal = await identify(req, cookies).catch(() => anonymous());
      if (changesState(req.method)) assertSameOrigin(req, origin);
    } else {
      principal = await identify(req, cookies);
      if (principal.credential.kind === "session" && changesState(req.method))
        assertCsrf(req, origin, principal.credential.session.csrfToken);
    }
    await authorize(principal, route.action, params.accountId);
    const query = validate(route.query, Object.fromEntries(search), "query") as Record<
      string,
      string | undefined
    >;
    const body = route.body ? validate(route.body, await jsonBody(req), "body") : undefined;
    const call: Call = {
      principal,
      params,
      query,
      body,
      services,
      http: exchange(req, res, cookies, origin),
    };
    const result = await route.handle(call);
    if (route.status === 302) redirect(res, (result as Redirect).location);
    else if (route.csv) sendCsv(res, route.status, result as string, route.csv(call));
    else sendJson(res, route.status, result);
  }

  function exchange(
    req: IncomingMessage,
    res: ServerResponse,
    cookies: ReadonlyMap<string, string>,
    origin: string,
  ): Exchange {
    const setCookies: string[] = [];
    return {
      cookies,
      cookieNames: names,
      userAgent: req.headers["user-agent"] ?? "",
      address: options.clientAddress(req),
      origin,
      setCookie(value) {
        setCookies.push(value);
        res.setHeader("set-cookie", setCookies);
      },
    };
  }

  return {
    handle(req, res) {
      const url = new URL(req.url ?? "/", "http://admin.invalid");
      if (!PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) return false;
      serve(req, res, url.pathname, url.searchParams).catch((error: unknown) => {
        const failure = asGatewayError(error);
        failures.failed(failure, { path: url.pathname }, "admin API failed");
        // A cookie naming an ended session is of no more use: the browser forgets it.
        if (failure.code === "session_expired") res.setHeader("set-cookie", forget(names));
        sendError(res, failure);
      });
      return true;
    },
  };
}

function forget(names: CookieNames): string {
  return cookie(names.session, "", names.secure, 0);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, "cache-control": "no-store", "content-length": 0 });
  res.end();
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
