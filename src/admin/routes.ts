// Every route of the admin listener, in one table: the router serves it, the OpenAPI document is generated
// from it, and a test checks each against the permission table for every role. What a route is made of is in
// route.ts; the routes, by what they are about, in the *-routes.ts files.

import { ACCOUNT_ROUTES } from "./account-routes.js";
import { ALERT_ROUTES } from "./alert-routes.js";
import { AUTH_ROUTES } from "./auth-routes.js";
import { KEY_ROUTES } from "./key-routes.js";
import { ME_ROUTES } from "./me-routes.js";
import { MEMBER_ROUTES } from "./member-routes.js";
import { OIDC_ROUTES } from "./oidc-routes.js";
import type { Route } from "./route.js";
import { SCIM_TOKEN_ROUTES } from "./scim-token-routes.js";
import { SHARING_ROUTES } from "./sharing-routes.js";
import { USAGE_ROUTES } from "./usage-routes.js";
import { USER_ROUTES } from "./user-routes.js";

export const ROUTES: readonly Route[] = [
  ...ME_ROUTES,
  ...ACCOUNT_ROUTES,
  ...KEY_ROUTES,
  ...SHARING_ROUTES,
  ...USAGE_ROUTES,
  ...ALERT_ROUTES,
  ...MEMBER_ROUTES,
  ...USER_ROUTES,
  ...SCIM_TOKEN_ROUTES,
  ...AUTH_ROUTES,
  ...OIDC_ROUTES,
];
