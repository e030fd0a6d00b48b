// The profile breakdown behind docs/benchmarks.md's "where the time goes": owners of script URLs, native
// frames counted for the JavaScript that called them, and each sample's time taken from the next delta.

import { describe, expect, it } from "vitest";
import {
  allocatedBytes,
  type CpuProfile,
  cpuByGatewayFile,
  cpuByGatewayPart,
  cpuByOwner,
  gatewayFile,
  gatewayPart,
  ownerOfUrl,
} from "../../bench/profile-breakdown.js";

describe("ownerOfUrl", () => {
  it("names packages (scoped ones with their scope), Node's core and the gateway's own files", () => {
    expect(ownerOfUrl("file:///app/node_modules/pino/lib/tools.js")).toBe("pino");
    expect(ownerOfUrl("file:///app/node_modules/@fastify/busboy/lib/main.js")).toBe("@fastify/busboy");
    expect(ownerOfUrl("/app/node_modules/a/node_modules/sonic-boom/index.js")).toBe("sonic-boom");
    expect(ownerOfUrl("node:_http_server")).toBe("node");
    expect(ownerOfUrl("file:///app/dist/proxy/forwarder.js")).toBe("gateway");
    expect(ownerOfUrl("")).toBeNull();
    expect(ownerOfUrl("function toString() { [native code] }")).toBeNull();
  });
});

describe("gatewayFile", () => {
  it("is the path under dist/ or src/", () => {
    expect(gatewayFile("file:///app/dist/proxy/forwarder.js")).toBe("proxy/forwarder.js");
    expect(gatewayFile("file:///home/me/src/tunnel/src/store/scripts.ts")).toBe("store/scripts.ts");
  });
});

describe("gatewayPart", () => {
  it("names the pipeline's stages, proxy's parts, the runner, the ending and the layers below", () => {
    expect(gatewayPart("proxy/stages/admit.js")).toBe("stage admit");
    expect(gatewayPart("proxy/stages/authenticate.ts")).toBe("stage authenticate");
    expect(gatewayPart("proxy/stages/forwarded-body.js")).toBe("stage send");
    expect(gatewayPart("proxy/relay/exchange.js")).toBe("proxy/relay");
    expect(gatewayPart("proxy/meters/json-meter.js")).toBe("proxy/meters");
    expect(gatewayPart("proxy/sharing/upstream-gate.js")).toBe("proxy/sharing");
    expect(gatewayPart("proxy/request/request-facts.js")).toBe("proxy/request");
    expect(gatewayPart("proxy/pipeline.js")).toBe("pipeline (the stage runner)");
    expect(gatewayPart("proxy/request-end.js")).toBe("ending (settle, record)");
    expect(gatewayPart("proxy/request-tracker.js")).toBe("proxy/request-tracker");
    expect(gatewayPart("billing/settlement-queue.js")).toBe("billing");
    expect(gatewayPart("store/billing/settle-script.js")).toBe("store");
    expect(gatewayPart("observability/request-record.js")).toBe("observability");
    expect(gatewayPart("core/request.js")).toBe("core");
    expect(gatewayPart("gateway.js")).toBe("other");
  });

  it("sums files by their part", () => {
    const byFile = new Map([
      ["proxy/relay/exchange.js", 20],
      ["proxy/relay/headers.js", 5],
      ["proxy/stages/send.js", 3],
      ["proxy/stages/forwarded-body.js", 4],
    ]);
    expect(Object.fromEntries(cpuByGatewayPart(byFile))).toEqual({ "proxy/relay": 25, "stage send": 7 });
  });
});

describe("cpuByOwner and cpuByGatewayFile", () => {
  // root ─ forward (gateway) ─ JSON.parse (native, no URL)
  //      │                   └ toString (native, no URL; a function name, not one of V8's own frames)
  //      └ writeGeneric (node) ─ writev (native)
  //      └ (garbage collector), (idle)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)", url: "" }, children: [2, 4, 6, 7] },
      { id: 8, callFrame: { functionName: "toString", url: "" } },
      {
        id: 2,
        callFrame: { functionName: "forward", url: "file:///app/dist/proxy/forwarder.js" },
        children: [3, 8],
      },
      { id: 3, callFrame: { functionName: "parse", url: "" } },
      {
        id: 4,
        callFrame: { functionName: "writeGeneric", url: "node:internal/stream_base_commons" },
        children: [5],
      },
      { id: 5, callFrame: { functionName: "writev", url: "" } },
      { id: 6, callFrame: { functionName: "(garbage collector)", url: "" } },
      { id: 7, callFrame: { functionName: "(idle)", url: "" } },
    ],
    samples: [7, 3, 2, 5, 6, 8, 7],
    timeDeltas: [0, 900, 10, 20, 30, 40, 5],
  };

  it("counts native frames for their JavaScript caller, each sample for the time until the next, idle left out", () => {
    const totals = Object.fromEntries(cpuByOwner(profile));
    // The idle sample's 900 µs delta belongs to the idle wait before JSON.parse ran, not to JSON.parse.
    expect(totals).toEqual({ gateway: 10 + 20 + 5, node: 30, "garbage collection": 40 });
  });

  it("splits the gateway's own time by file", () => {
    expect(Object.fromEntries(cpuByGatewayFile(profile))).toEqual({ "proxy/forwarder.js": 35 });
  });
});

describe("allocatedBytes", () => {
  it("adds up every function's own allocations, however deep", () => {
    const leaf = (selfSize: number) => ({ selfSize, children: [] });
    const head = { selfSize: 0, children: [{ selfSize: 100, children: [leaf(20), leaf(3)] }, leaf(4000)] };
    expect(allocatedBytes({ head })).toBe(4123);
  });
});
