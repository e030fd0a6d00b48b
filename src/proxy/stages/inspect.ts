// Stage 3: the body, read within its limits, and what it asks for read from it (request-facts.ts): the model,
// the output caps, the number of completions, the prompt's size, whether it streams. Refuses a body too large,
// not whole, or malformed for its endpoint.

import type { Config } from "../../config/schema.js";
import type { ModelCheck } from "../../core/model-check.js";
import { checkDeclaredLength, notWhole, readBody } from "../../http/body.js";
import { modelOfPath } from "../relay/model-list.js";
import { inspectRequest } from "../request/request-facts.js";
import { type Classified, type Inspected, passageOf } from "./phases.js";
import type { Stage } from "./stage.js";

export interface InspectDeps {
  config: Pick<Config, "limits">;
}

export const inspect: Stage<InspectDeps, Classified, Inspected> = {
  name: "inspect",
  does: "reads the body within its limits and what it asks for (model, caps, prompt size, stream)",
  create: (deps) => {
    const { limits } = deps.config;
    return async (classified) => {
      const { req, request, endpoint, method, path } = classified;
      checkDeclaredLength(req, limits.maxBodyBytes);
      const body = await readBody(req, limits.maxBodyBytes);
      // Bytes after the declared length that are no HTTP made Node's parser refuse the connection (and end it)
      // while the body was read: the body's length was a lie, and no answer to it could reach the client.
      if (!req.socket.writable) throw notWhole(req, body.length, "bytes that are not HTTP followed it");
      const facts = await inspectRequest(body, req.headers["content-type"], endpoint, limits);
      const pathModel = method === "GET" ? modelOfPath(path) : null;
      const check: ModelCheck = pathModel !== null ? { kind: "named", model: pathModel } : facts.model;
      request.model = check.kind === "named" ? check.model : null;
      // A request without a body, or one that only counts tokens, is never reserved or charged.
      request.endpointClass = body.length === 0 ? "free" : endpoint.class;
      request.usageClass = body.length === 0 || endpoint.class === "free" ? null : endpoint.class;
      const passage = passageOf(classified);
      passage.body = body;
      passage.facts = facts;
      passage.check = check;
      return passage as Inspected;
    };
  },
};
