// The classify stage: a path the endpoint table knows gets its endpoint on the request's passage; a
// management switch of the model server is refused with 403 path_not_allowed, before any body is read.

import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { GatewayError } from "../../../src/core/errors.js";
import { GatewayRequest } from "../../../src/core/request.js";
import { EndpointTable } from "../../../src/proxy/request/endpoints.js";
import { classify } from "../../../src/proxy/stages/classify.js";
import { Passage } from "../../../src/proxy/stages/phases.js";

const run = classify.create({ endpoints: new EndpointTable(configSchema.parse({}).endpoints) });

function authenticated(method: string, path: string) {
  const request = new GatewayRequest("r1", method, path, 0);
  const passage = new Passage(
    {} as IncomingMessage,
    {} as ServerResponse,
    request,
    "r1",
    method,
    path,
    false,
  );
  return Object.assign(passage, {
    credential: { ref: { accountId: "a", keyId: "k" }, token: "t", hash: "h" },
  });
}

describe("the classify stage", () => {
  it("gives a generation its endpoint, on the same passage", async () => {
    const passage = authenticated("POST", "/v1/chat/completions");
    const classified = await run(passage);
    expect(classified).toBe(passage);
    expect(classified.endpoint.class).toBe("generation");
  });

  it("refuses the model server's management switches", () => {
    const refused = () => run(authenticated("POST", "/reset_prefix_cache"));
    expect(refused).toThrow(GatewayError);
    try {
      refused();
    } catch (error) {
      expect((error as GatewayError).code).toBe("path_not_allowed");
    }
  });
});
