// Every route of the admin API, in one table: the router serves it and the OpenAPI document is generated
// from it. What a route is made of is in route.ts; the routes, by what they are about, in account-routes.ts,
// key-routes.ts, usage-routes.ts and alert-routes.ts.

import { ACCOUNT_ROUTES } from "./account-routes.js";
import { ALERT_ROUTES } from "./alert-routes.js";
import { KEY_ROUTES } from "./key-routes.js";
import type { Route } from "./route.js";
import { USAGE_ROUTES } from "./usage-routes.js";

export const ROUTES: readonly Route[] = [...ACCOUNT_ROUTES, ...KEY_ROUTES, ...USAGE_ROUTES, ...ALERT_ROUTES];
