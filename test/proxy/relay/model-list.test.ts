// A key limited to some models sees only those in the upstream's model list, and may not look up another
// model by path; a list too large to hold, or one that is not OpenAI's shape, passes as it came.

import { describe, expect, it } from "vitest";
import {
  FilteringModelList,
  filterModelList,
  HeldModelList,
  MAX_HELD_BYTES,
  modelOfPath,
} from "../../../src/proxy/relay/model-list.js";
import { RecordingHandler, recordingSocket } from "./recording-handler.js";

const LIST = {
  object: "list",
  data: [
    { id: "llama-3", object: "model", owned_by: "vllm" },
    { id: "qwen", object: "model" },
    { id: "mistral", object: "model" },
  ],
};

describe("filterModelList", () => {
  it("keeps only the allowed models, and every other member of the list as it was", () => {
    const filtered = filterModelList(Buffer.from(JSON.stringify(LIST)), ["llama-3", "mistral", "not-served"]);
    expect(JSON.parse(String(filtered))).toEqual({
      object: "list",
      data: [
        { id: "llama-3", object: "model", owned_by: "vllm" },
        { id: "mistral", object: "model" },
      ],
    });
    expect(JSON.parse(String(filterModelList(Buffer.from(JSON.stringify(LIST)), [])))).toEqual({
      object: "list",
      data: [],
    });
  });

  it("is null for a body that is not an OpenAI model list, which goes on unfiltered", () => {
    for (const body of ["not json", "[1,2]", '{"models":[]}', '{"data":{}}', '"list"', "42"]) {
      expect(filterModelList(Buffer.from(body), ["m"]), body).toBeNull();
    }
  });

  it("is null for a JSON null body too, rather than throwing", () => {
    // A model server (or whatever answers at its URL) sending `null` with 200 to GET /v1/models: the
    // exchange calls this from the response's "end" event, where a throw is an uncaught exception.
    expect(filterModelList(Buffer.from("null"), ["m"])).toBeNull();
  });

  it("drops entries without an id rather than letting them through", () => {
    const body = Buffer.from(JSON.stringify({ data: [null, 5, { name: "m" }, { id: "m" }] }));
    expect(JSON.parse(String(filterModelList(body, ["m"]))).data).toEqual([{ id: "m" }]);
  });
});

describe("HeldModelList", () => {
  it("holds the chunks of a list and gives it filtered once complete", () => {
    const held = new HeldModelList(["qwen"]);
    const text = JSON.stringify(LIST);
    expect(held.hold(Buffer.from(text.slice(0, 10)))).toBe(true);
    expect(held.hold(Buffer.from(text.slice(10)))).toBe(true);
    expect(JSON.parse(String(held.filtered())).data).toEqual([{ id: "qwen", object: "model" }]);
  });

  it("gives a body that is not a model list back as it came", () => {
    const held = new HeldModelList(["qwen"]);
    held.hold(Buffer.from("<html>"));
    expect(String(held.filtered())).toBe("<html>");
  });

  it("says when the list has grown too large to hold, and releases what it held, in order, once", () => {
    const held = new HeldModelList(["qwen"]);
    const first = Buffer.alloc(MAX_HELD_BYTES, "a");
    expect(held.hold(first)).toBe(true);
    const second = Buffer.from("b");
    expect(held.hold(second)).toBe(false);
    const released = held.release();
    // Compared by identity: a deep comparison of 4 MiB takes seconds.
    expect(released).toHaveLength(2);
    expect(released[0]).toBe(first);
    expect(released[1]).toBe(second);
    expect(held.release()).toEqual([]);
  });
});

describe("FilteringModelList", () => {
  const JSON_HEADERS = { "content-type": "application/json" };

  function setUp(allowed: string[]) {
    const next = new RecordingHandler();
    return { next, filtering: new FilteringModelList(next, allowed, recordingSocket(next)) };
  }

  it("holds the list back, headers too, and sends it filtered with its new length once complete", () => {
    const { next, filtering } = setUp(["qwen"]);
    const body = Buffer.from(JSON.stringify(LIST));
    filtering.onResponseStart(200, { ...JSON_HEADERS, "content-length": String(body.length) }, JSON_HEADERS);
    filtering.onResponseData(body.subarray(0, 10));
    filtering.onResponseData(body.subarray(10));
    expect(next.events).toEqual([]);
    filtering.onResponseEnd();
    const filtered = JSON.stringify({ object: "list", data: [{ id: "qwen", object: "model" }] });
    expect(next.events).toEqual(["start 200", `data ${filtered}`, "end"]);
    expect(next.headers).toEqual({ ...JSON_HEADERS, "content-length": filtered.length });
  });

  it("passes an error, or a compressed list, on as it came", () => {
    for (const [status, upstream] of [
      [404, JSON_HEADERS],
      [200, { ...JSON_HEADERS, "content-encoding": "gzip" }],
    ] as const) {
      const { next, filtering } = setUp(["qwen"]);
      filtering.onResponseStart(status, JSON_HEADERS, upstream);
      filtering.onResponseData(Buffer.from("as it came"));
      filtering.onResponseEnd();
      expect(next.events).toEqual([`start ${status}`, "data as it came", "end"]);
      expect(next.headers).toBe(JSON_HEADERS);
    }
  });

  it("sends a list too large to hold on unfiltered, with the upstream's headers, what was held in one write", () => {
    const { next, filtering } = setUp(["qwen"]);
    const headers = { ...JSON_HEADERS, "content-length": String(MAX_HELD_BYTES + 2) };
    filtering.onResponseStart(200, headers, JSON_HEADERS);
    filtering.onResponseData(Buffer.alloc(MAX_HELD_BYTES, " "));
    filtering.onResponseData(Buffer.from("[]"));
    filtering.onResponseData(Buffer.from("!"));
    filtering.onResponseEnd();
    expect(next.headers).toBe(headers);
    expect(next.events.map((event) => (event.length > 20 ? "data <held>" : event))).toEqual([
      "start 200",
      "cork",
      "data <held>",
      "data []",
      "uncork",
      "data !",
      "end",
    ]);
  });
});

describe("modelOfPath", () => {
  it("reads the model a GET /v1/models/{model} looks up, percent-decoded", () => {
    expect(modelOfPath("/v1/models/llama-3")).toBe("llama-3");
    expect(modelOfPath("/v1/models/org%2Fmodel")).toBe("org/model");
    expect(modelOfPath("/v1/models/a/b")).toBe("a/b");
  });

  it("is null for the list itself, another path, or a name that is not valid percent-encoding", () => {
    for (const path of [
      "/v1/models",
      "/v1/models/",
      "/v1/chat/completions",
      "/models/m",
      "/v1/models/%E0%A4%A",
    ]) {
      expect(modelOfPath(path), path).toBeNull();
    }
  });
});
