// The body as the model server gets it: a generation without its servers' cap field gets the cap its worst
// case assumed; one that sets it keeps it; a stream the gateway wants usage for asks for it; the priority
// field is the gateway's (negated for a higherFirst server), never the client's; a body without JSON is sent
// as it came.

import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { EndpointTable } from "../../../src/proxy/request/endpoints.js";
import { inspectRequest } from "../../../src/proxy/request/request-facts.js";
import { forwardedBody, priorityWriter } from "../../../src/proxy/stages/forwarded-body.js";

const config = configSchema.parse({});
const chat = new EndpointTable(config.endpoints).classify("POST", "/v1/chat/completions");

async function forwarded(body: unknown, cap: number, askUsage: boolean, priority: number | null = null) {
  const raw = Buffer.from(JSON.stringify(body));
  const facts = await inspectRequest(raw, "application/json", chat, config.limits);
  const writer = priorityWriter({ priorityField: "priority", priorityOrder: "higherFirst" });
  const edit = priority === null || writer === null ? null : writer({ priority, weight: 1, maxWaitMs: 1 });
  return JSON.parse(forwardedBody(raw, facts, chat, true, cap, askUsage, edit).toString("utf8"));
}

describe("forwardedBody", () => {
  it("adds the cap the worst case assumed where the body sets none", async () => {
    expect(await forwarded({ model: "m", messages: [] }, 64, false)).toMatchObject({ max_tokens: 64 });
  });

  it("keeps a cap the body sets", async () => {
    const body = await forwarded({ model: "m", messages: [], max_tokens: 7 }, 7, false);
    expect(body.max_tokens).toBe(7);
  });

  it("asks a stream for its usage", async () => {
    const body = await forwarded({ model: "m", messages: [], stream: true, max_tokens: 5 }, 5, true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("writes the gateway's priority over the client's, negated for a higherFirst server", async () => {
    const body = await forwarded({ model: "m", messages: [], max_tokens: 5, priority: -99 }, 5, false, 3);
    expect(body.priority).toBe(-3);
  });

  it("writes no priority field where none is configured", () => {
    expect(priorityWriter({ priorityField: undefined, priorityOrder: "lowerFirst" })).toBeNull();
    const writer = priorityWriter({ priorityField: "a.b", priorityOrder: "lowerFirst" });
    expect(writer?.({ priority: null, weight: 1, maxWaitMs: 1 } as never)).toEqual({
      path: ["a", "b"],
      value: "0",
    });
  });
});
