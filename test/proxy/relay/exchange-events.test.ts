// The exchanges' shared listeners: each finds its exchange by the tag on the object it fires on, and an
// exception in relaying fails that exchange instead of escaping into the event emitter.

import { describe, expect, it } from "vitest";
import {
  type ExchangeEvents,
  exchangeOf,
  onClientClose,
  onUpstreamData,
  onUpstreamEnd,
  tag,
} from "../../../src/proxy/relay/exchange-events.js";

function recorder(throwing = false): ExchangeEvents & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => () => {
    calls.push(name);
    if (throwing && name !== "failed") throw new Error(`${name} broke`);
  };
  return {
    calls,
    onUpstreamRequest: record("request"),
    onUpstreamResponse: record("response"),
    onUpstreamData: record("data"),
    onUpstreamEnd: record("end"),
    onUpstreamClose: record("close"),
    onUpstreamError: record("error"),
    onTimeout: record("timeout"),
    onClientClose: record("clientClose"),
    resumeUpstream: record("resume"),
    failed: record("failed"),
  };
}

describe("the exchange listeners", () => {
  it("reach the exchange an object was tagged with, and nothing for an untagged one", () => {
    const exchange = recorder();
    const response = {};
    tag(response, exchange);
    expect(exchangeOf(response)).toBe(exchange);
    expect(exchangeOf({})).toBeUndefined();
    onUpstreamData.call(response as never, Buffer.from("x"));
    onClientClose.call(response as never);
    onClientClose.call({} as never);
    expect(exchange.calls).toEqual(["data", "clientClose"]);
  });

  it("turn an exception while relaying into the exchange failing, not into an escaped error", () => {
    const exchange = recorder(true);
    const response = {};
    tag(response, exchange);
    expect(() => onUpstreamEnd.call(response as never)).not.toThrow();
    expect(exchange.calls).toEqual(["end", "failed"]);
  });
});
