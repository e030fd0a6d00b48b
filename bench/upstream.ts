// The benchmark's model server, in a process of its own: the demo upstream (answering at once), plus
// /v1/large, a response of LARGE_BYTES to show that the gateway's memory does not grow with response size,
// and the streams scenario's timed streams for the model bench-stream (stream-source.ts).

import { createServer } from "node:http";
import { answerDemoRequest, readRequestBody } from "../src/demo/demo-upstream.js";
import { STREAM_MODEL, streamAnswer, streamRequestOf } from "./stream-source.js";

const port = Number(process.argv[2]);
const LARGE_BYTES = 256 << 20;
const CHUNK = Buffer.alloc(64 << 10, "x");

createServer(async (req, res) => {
  const body = await readRequestBody(req);
  if (req.url === "/v1/large") {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"data":"');
    let sent = 0;
    const pump = () => {
      while (sent < LARGE_BYTES) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", pump);
      }
      res.end('","usage":{"prompt_tokens":1,"completion_tokens":1}}');
    };
    pump();
    return;
  }
  if (body.includes(STREAM_MODEL)) {
    const stream = streamRequestOf(JSON.parse(body.toString("utf8")));
    if (stream) return streamAnswer(res, stream);
  }
  await answerDemoRequest(req, res, body, { defaultCompletionTokens: 16 });
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
