// The body stand-in handed to http-proxy-3 as `options.buffer`: with the installed http-proxy-3 the body must
// reach the upstream whole, through the stand-in's one pipe() call. If an upgrade sends `buffer` another way,
// this fails (and the forwarder would send no body), instead of the fast path silently going away.

import { createProxyServer } from "http-proxy-3";
import { afterAll, describe, expect, it } from "vitest";
import { bodySource } from "../../../src/proxy/relay/body-source.js";
import { type Listening, listen } from "../../helpers/http.js";

const listening: Listening[] = [];
afterAll(async () => {
  for (const one of listening) await one.close();
});

describe("bodySource", () => {
  it("is piped by http-proxy-3 once, and the upstream receives the body as it was", async () => {
    const received: Buffer[] = [];
    const upstream = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push(Buffer.concat(chunks));
        res.writeHead(200).end("ok");
      });
    });
    listening.push(upstream);
    const proxy = createProxyServer({ target: upstream.url });
    const body = Buffer.from(
      JSON.stringify({ model: "m", messages: [{ role: "user", content: "ä".repeat(3000) }] }),
    );
    let piped = 0;
    const gateway = await listen((req, res) => {
      // The client's own body is not read: the stand-in carries the body the gateway forwards.
      req.resume();
      const source = bodySource(body);
      const pipe = source.pipe.bind(source);
      source.pipe = ((destination: NodeJS.WritableStream) => {
        piped++;
        return pipe(destination as never);
      }) as typeof source.pipe;
      req.headers["content-length"] = String(body.length);
      proxy.web(req, res, { buffer: source });
    });
    listening.push(gateway);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    expect(await res.text()).toBe("ok");
    proxy.close();
    expect(piped).toBe(1);
    expect(received).toHaveLength(1);
    expect(received[0]?.equals(body)).toBe(true);
  });
});
