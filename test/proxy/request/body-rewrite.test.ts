import { describe, expect, it } from "vitest";
import { bodyEdits, withFields } from "../../../src/proxy/request/body-rewrite.js";
import { scanJson } from "../../../src/proxy/request/json-scan.js";

const rewrite = (text: string, ...args: Parameters<typeof bodyEdits>) =>
  withFields(Buffer.from(text), scanJson(Buffer.from(text), 64), bodyEdits(...args)).toString();

describe("the forwarded body", () => {
  it("adds the cap where the body leaves its target unset, keeping the client's bytes", () => {
    const text =
      '{"model":"m","temperature":1.0,"seed":18446744073709551615,"messages":[{"content":"\\u003c"}]}';
    expect(rewrite(text, ["max_tokens"], false, 4096, false)).toBe(`${text.slice(0, -1)},"max_tokens":4096}`);
    // A body that sets the target keeps its own value.
    expect(rewrite('{"max_tokens":7}', ["max_tokens"], true, 4096, false)).toBe('{"max_tokens":7}');
    // null means unset: replaced in place, so that a strict parser (TGI's serde) sees no duplicate key.
    expect(rewrite('{"max_tokens":null,"a":1}', ["max_tokens"], false, 50, false)).toBe(
      '{"max_tokens":50,"a":1}',
    );
  });

  it("writes nested targets, creating or extending the object that holds them", () => {
    expect(rewrite('{"model":"m"}', ["options", "num_predict"], false, 9, false)).toBe(
      '{"model":"m","options":{"num_predict":9}}',
    );
    expect(rewrite('{"options":{"temperature":0.2}}', ["options", "num_predict"], false, 9, false)).toBe(
      '{"options":{"temperature":0.2,"num_predict":9}}',
    );
  });

  it("asks a stream for its usage, keeping the client's other stream options", () => {
    expect(rewrite('{"stream":true}', null, false, 0, true)).toBe(
      '{"stream":true,"stream_options":{"include_usage":true}}',
    );
    expect(rewrite('{"stream_options":{"continuous_usage_stats":false}}', null, false, 0, true)).toBe(
      '{"stream_options":{"continuous_usage_stats":false,"include_usage":true}}',
    );
    expect(rewrite('{"stream_options":null}', ["max_tokens"], false, 3, true)).toBe(
      '{"stream_options":{"include_usage":true},"max_tokens":3}',
    );
  });

  it("has nothing to do for a body that sets its cap and needs no usage", () => {
    expect(bodyEdits(["max_tokens"], true, 10, false)).toEqual([]);
    expect(bodyEdits(null, false, 10, false)).toEqual([]);
  });
});
