// Stage 1: the credential in the request's headers, resolved to its key (from the in-process cache, else one
// Redis lookup). Refuses a missing or unknown key.

import { performance } from "node:perf_hooks";
import type { Authenticator } from "../../auth/authenticator.js";
import type { Arrived, Authenticated } from "./phases.js";
import type { Stage } from "./stage.js";

export interface AuthenticateDeps {
  authenticator: Pick<Authenticator, "resolve">;
}

export const authenticate: Stage<AuthenticateDeps, Arrived, Authenticated> = {
  name: "authenticate",
  does: "resolves the credential to its key (cached; else one Redis lookup)",
  create: (deps) => async (arrived) => {
    const credential = await deps.authenticator.resolve(arrived.req.headers);
    arrived.request.ref = credential.ref;
    arrived.request.authenticatedAt = performance.now();
    return Object.assign(arrived, { credential });
  },
};
