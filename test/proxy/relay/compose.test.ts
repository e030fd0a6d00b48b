// Which concerns a request's answer goes through: only those its plan needs, in the fixed order, every chain
// beginning with metering and ending in the exchange (here a recorder).

import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { type AdmittedRequest, GatewayRequest } from "../../../src/core/request.js";
import { composeHandlers, type HandlerPlan } from "../../../src/proxy/relay/compose.js";
import type { RelayHandler } from "../../../src/proxy/relay/relay-handler.js";
import { RecordingHandler } from "./recording-handler.js";

const DEPS = {
  metering: { maxEventBytes: 1 << 20, maxJsonBytes: 4 << 20, maxDecompressedBytes: 1 << 20 },
  captureBytes: 1000,
};
const PLAN: HandlerPlan = {
  received: Buffer.from("{}"),
  strip: null,
  filterModels: null,
  rateLimitHeaders: null,
};

/** The handlers from `head` on, by class, up to the recorder at the end. */
function chainOf(head: RelayHandler, core: RelayHandler): string[] {
  const names: string[] = [];
  let handler: RelayHandler | undefined = head;
  while (handler !== undefined && handler !== core) {
    names.push(handler.constructor.name);
    handler = (handler as unknown as { next?: RelayHandler }).next;
  }
  if (handler === core) names.push("core");
  return names;
}

function compose(plan: Partial<HandlerPlan>, logBodies = false) {
  const core = new RecordingHandler();
  // Never written to: the chain only keeps it to cork several pieces into one write.
  const res = {} as ServerResponse;
  const head = composeHandlers(core, res, { logBodies }, { ...PLAN, ...plan }, DEPS);
  return { core, head, chain: chainOf(head, core) };
}

describe("composeHandlers", () => {
  it("gives the hot path — no bodies logged, no model list, no rate limits — the meter alone", () => {
    expect(compose({}).chain).toEqual(["Metering", "core"]);
    // Strip mode is the meter's, not another handler.
    expect(compose({ strip: { everyChunk: false } }).chain).toEqual(["Metering", "core"]);
  });

  it("adds each concern the plan asks for, in the fixed order from the upstream to the client", () => {
    expect(compose({}, true).chain).toEqual(["Metering", "CapturingBodies", "core"]);
    expect(compose({ filterModels: ["m"] }).chain).toEqual(["Metering", "FilteringModelList", "core"]);
    expect(compose({ rateLimitHeaders: { "x-ratelimit-limit-requests": "5" } }).chain).toEqual([
      "Metering",
      "AddingRateLimitHeaders",
      "core",
    ]);
    expect(
      compose({ filterModels: ["m"], rateLimitHeaders: { "x-ratelimit-limit-requests": "5" } }, true).chain,
    ).toEqual(["Metering", "FilteringModelList", "AddingRateLimitHeaders", "CapturingBodies", "core"]);
  });

  it("runs a whole chain: the capture keeps the filtered list the client got, with the rate-limit headers", async () => {
    const list = JSON.stringify({ object: "list", data: [{ id: "m" }, { id: "other" }] });
    const { core, head } = compose(
      { filterModels: ["m"], rateLimitHeaders: { "x-ratelimit-limit-requests": "5" } },
      true,
    );
    const request = new GatewayRequest("r", "GET", "/v1/models", 0) as AdmittedRequest;
    head.onResponseStart(200, { "content-type": "application/json" }, { "content-type": "application/json" });
    head.onResponseData(Buffer.from(list));
    head.onResponseEnd();
    await head.onFinish(request);
    const filtered = JSON.stringify({ object: "list", data: [{ id: "m" }] });
    expect(core.body()).toBe(filtered);
    expect(core.headers).toEqual({
      "content-type": "application/json",
      "content-length": filtered.length,
      "x-ratelimit-limit-requests": "5",
    });
    expect(request.bodies?.response(1000)).toBe(filtered);
    expect(request.bodies?.request(1000)).toBe("{}");
    expect(request.metered).toBe(true);
  });
});
