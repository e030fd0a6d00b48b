// Stage 1: the credential in the request's headers, resolved to its key (from the in-process cache, else one
// Redis lookup). Refuses a missing or unknown key.

import { performance } from "node:perf_hooks";
import type { Authenticator, Credential } from "../../auth/authenticator.js";
import { type Arrived, type Authenticated, passageOf } from "./phases.js";
import type { Stage } from "./stage.js";

export interface AuthenticateDeps {
  authenticator: Pick<Authenticator, "resolveNow">;
}

export const authenticate: Stage<AuthenticateDeps, Arrived, Authenticated> = {
  name: "authenticate",
  does: "resolves the credential to its key (cached; else one Redis lookup)",
  create: (deps) => (arrived) => {
    const credential = deps.authenticator.resolveNow(arrived.req.headers);
    // A cached key: no promise, and the runner does not wait.
    if (!(credential instanceof Promise)) return authenticated(arrived, credential);
    arrived.request.keyLookedUp = true;
    return credential.then((resolved) => authenticated(arrived, resolved));
  },
};

function authenticated(arrived: Arrived, credential: Credential): Authenticated {
  arrived.request.ref = credential.ref;
  arrived.request.authenticatedAt = performance.now();
  const passage = passageOf(arrived);
  passage.credential = credential;
  return passage as Authenticated;
}
