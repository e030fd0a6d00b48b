// The saturated scenario's model server, in a process of its own: it runs at most CAPACITY requests at once,
// each for SERVICE_MS, and queues the rest first come, first served, as vLLM's waiting queue and llama.cpp's
// slots do; then it answers as the demo model server does. Arguments: port, capacity, service time (ms).

import { createServer } from "node:http";
import { answerDemoRequest, readRequestBody } from "../src/demo/demo-upstream.js";

const [port, capacity, serviceMs] = process.argv.slice(2).map(Number) as [number, number, number];
const waiting: (() => void)[] = [];
let running = 0;

/** Starts waiting requests while there is room; each counts as running from the moment it is let in. */
function next(): void {
  while (running < capacity && waiting.length > 0) {
    running++;
    (waiting.shift() as () => void)();
  }
}

createServer(async (req, res) => {
  const body = await readRequestBody(req);
  if (req.method !== "POST") return answerDemoRequest(req, res, body);
  await new Promise<void>((resolve) => {
    waiting.push(resolve);
    next();
  });
  setTimeout(() => {
    const done = () => {
      running--;
      next();
    };
    if (res.destroyed) return done();
    res.on("close", done);
    void answerDemoRequest(req, res, body, { defaultCompletionTokens: 16 });
  }, serviceMs);
}).listen(port, "127.0.0.1", () => process.send?.("ready"));
