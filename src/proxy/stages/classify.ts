// Stage 2: which endpoint the request is for (endpoints.ts): how its usage is metered and its body read.
// Refuses the model server's management switches, which no key may reach.

import { type Endpoint, type EndpointTable, pathNotAllowed } from "../request/endpoints.js";
import { type Authenticated, type Classified, type ForwardedEndpoint, passageOf } from "./phases.js";
import type { Stage } from "./stage.js";

export interface ClassifyDeps {
  endpoints: Pick<EndpointTable, "classify">;
}

export const classify: Stage<ClassifyDeps, Authenticated, Classified> = {
  name: "classify",
  does: "finds the endpoint; refuses the model server's management paths",
  create: (deps) => (authenticated) => {
    const { method, path } = authenticated;
    const endpoint = deps.endpoints.classify(method, path);
    if (!forwardable(endpoint)) throw pathNotAllowed(method, path);
    const passage = passageOf(authenticated);
    passage.endpoint = endpoint;
    return passage as Classified;
  },
};

function forwardable(endpoint: Endpoint): endpoint is ForwardedEndpoint {
  return endpoint.class !== "management";
}
