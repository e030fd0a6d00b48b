// The admin listener's requests (admin.host:admin.port, bound by gateway.ts, never the public port): the JSON
// API under /admin/v1/, the sign-in flow under /auth/, SCIM provisioning under /scim/v2/, the OpenAPI
// document, and the dashboard's static files at /. The listener opens when an admin token is set or people can sign in (docs/sign-in.md).

import type { IncomingMessage, RequestListener } from "node:http";
import type { Logger } from "pino";
import { GatewayError } from "../core/errors.js";
import { sendError, sendJson } from "../http/respond.js";
import { pathOf } from "../http/url-path.js";
import type { Identity } from "../identity/identity.js";
import type { RequestFailures } from "../observability/request-failures.js";
import { AccountUsageService } from "../services/account-usage.js";
import { AccountService } from "../services/accounts.js";
import { type AlertOptions, AlertService } from "../services/alerts.js";
import { BudgetService } from "../services/budgets.js";
import { KeyService } from "../services/keys.js";
import { OperatorOverviewService } from "../services/operator-overview.js";
import { type QueueProbe, SharingService } from "../services/sharing.js";
import type { Stores } from "../store/stores.js";
import { openApiDocument } from "./openapi.js";
import type { AdminServices } from "./route.js";
import { createAdminRouter } from "./router.js";
import { ROUTES } from "./routes.js";
import { createScimHandler } from "./scim-handler.js";
import { CONTENT_SECURITY_POLICY, StaticFiles } from "./static.js";

export interface AdminServerOptions {
  /** People, sessions, tokens, sign-in; the credentials (legacy tokens included). */
  identity: Identity;
  /** The client's address, behind trusted proxies too (TransportSecurity.clientAddress). */
  clientAddress?: (req: IncomingMessage) => string;
  /** The stores the gateway shares with its request path. */
  stores: Stores;
  /** An account's balance changed through the admin API (for the metrics' balance gauge). */
  balanceChanged?: (accountId: string, balance: number) => void;
  /** The replica's gate to the model server (upstream.maxInFlight), for an account's queueing. */
  queue?: QueueProbe | null;
  /** Alert settings: http:// webhooks allowed or not, the operator's webhooks, how test events are sent. */
  alerts: AlertOptions;
  logger: Logger;
  /** How a 5xx of its own is logged: once per Redis outage, per request for a bug (the replica's one). */
  failures?: Pick<RequestFailures, "failed">;
  ui?: StaticFiles;
}

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

export function adminHandler(options: AdminServerOptions): RequestListener {
  const { stores } = options;
  const services: AdminServices = {
    accounts: new AccountService(stores),
    budgets: new BudgetService(stores),
    keys: new KeyService(stores),
    alerts: new AlertService(stores, options.alerts),
    usage: new AccountUsageService(stores),
    overview: new OperatorOverviewService(stores),
    identity: options.identity,
    calendar: stores.calendar,
    now: stores.now,
    ...(options.balanceChanged && { balanceChanged: options.balanceChanged }),
    sharing: new SharingService(stores),
    queue: options.queue ?? null,
    stores,
  };
  const router = createAdminRouter(ROUTES, services, options.logger, {
    clientAddress: options.clientAddress ?? ((req) => req.socket.remoteAddress ?? ""),
    ...(options.failures && { failures: options.failures }),
  });
  const ui = options.ui ?? new StaticFiles();
  if (!ui.built)
    options.logger.warn("the dashboard is not built (npm run build); the admin API works without it");
  const document = openApiDocument();
  const scim = createScimHandler(
    options.identity.scim,
    options.identity.settings.externalUrl,
    options.logger,
  );

  return (req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const path = pathOf(req.url);
    if (path === "/admin/v1/openapi.json" && req.method === "GET") {
      sendJson(res, 200, document);
      return;
    }
    if (router.handle(req, res)) return;
    if (scim.handle(req, res)) return;
    if (ui.serve(req, res, path)) return;
    sendError(res, new GatewayError("not_found", `Nothing is served at ${path} here.`));
  };
}
