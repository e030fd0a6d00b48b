// Loaded with --import into the bare proxy and the gateway by bench/ttfb-stages.ts: for each request, the
// moments (performance.now(), µs after its arrival) at which it passed the stages of its way to the first
// byte, read from Node's own HTTP diagnostics channels, so that both proxies are timed at the same points,
// and, in the gateway, from its pipeline's stages, each wrapped where the pipeline builds it. Nothing of the
// gateway's code is changed: the stages are the objects `dist/proxy/pipeline.js` exports, wrapped before the
// gateway builds its pipeline. SIGUSR2 writes the records gathered so far to $TTFB_STAGES_OUT and starts
// afresh. One request at a time is measured, so the upstream request and response belong to the request
// that arrived last. Plain JavaScript, so that the gateway runs from its build exactly as in production.

import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import http from "node:http";
import { Session } from "node:inspector";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { isMainThread } from "node:worker_threads";

let records = [];
let current = null;

function mark(name) {
  if (current !== null && current[name] === undefined)
    current[name] = Math.round((performance.now() - current.at) * 1000);
}

const hrMicros = () => Number(process.hrtime.bigint() / 1000n);

// The client's connection, accepted (npm run bench's firstByte opens one per request: it stops reading after
// the first chunk, and the client closes the connection rather than read the rest).
let connectedAt = 0;
subscribe("net.server.socket", () => {
  connectedAt = hrMicros();
});

subscribe("http.server.request.start", ({ request, response }) => {
  if (request.url === "/readyz" || request.url === "/healthz") return;
  // `hr`: the arrival on the monotonic clock in µs, the clock of a V8 CPU profile's timestamps and of the
  // other processes' records.
  const hr = hrMicros();
  current = { at: performance.now(), hr, connected: connectedAt - hr };
  records.push(current);
  const record = current;
  // An 'end' listener does not change how the body is read (a 'data' listener would).
  request.once("end", () => {
    if (record === current) mark("bodyRead");
  });
  // Node corks a response's socket at its first write and uncorks it on the next tick: the bytes reach the
  // kernel then, in one writev with whatever else was written in between.
  const socket = request.socket;
  for (const method of ["_writev", "_write"]) {
    const own = socket[method];
    socket[method] = function flushed(...args) {
      if (record === current) mark("clientFlushed");
      delete socket._writev;
      delete socket._write;
      return own.apply(this, args);
    };
  }
  // The first write carries the headers and the first chunk together (neither proxy flushes headers alone).
  const write = response.write;
  response.write = function firstWrite(...args) {
    if (record === current) mark("clientWrite");
    response.write = write;
    return write.apply(this, args);
  };
});

// Both proxies reach the model server through http-proxy-3, which calls `http.request` on the module object.
const request = http.request;
http.request = function upstreamRequest(...args) {
  mark("upstreamCreated");
  return request.apply(this, args);
};

// Published as the request's head and body have been handed to its socket (ClientRequest's _finish), which a
// pooled socket gets on the next tick.
subscribe("http.client.request.start", ({ request }) => {
  mark("upstreamFlushed");
  const record = current;
  // 'finish': the request's last bytes were handed to its socket.
  request.once("finish", () => {
    if (record === current) mark("upstreamWritten");
  });
});

// Published when the upstream's response head has been parsed, before the 'response' event.
subscribe("http.client.response.finish", ({ response }) => {
  mark("upstreamHeaders");
  const record = current;
  const push = response.push;
  response.push = function firstChunk(...args) {
    if (record === current) mark("upstreamChunk");
    response.push = push;
    return push.apply(this, args);
  };
});

// The gateway: its stages, timed where each hands the request on (a stage that waits, when its promise
// settles: the reaction registered here runs just before the pipeline's own await resumes).
const main = process.argv[1] ?? "";
// (NODE_OPTIONS loads this into the gateway's worker threads too: only the main thread serves.)
if (isMainThread && main.endsWith(join("dist", "cli.js"))) {
  const { STAGES } = await import(pathToFileURL(join(dirname(main), "proxy", "pipeline.js")).href);
  for (const stage of STAGES) {
    const create = stage.create;
    const name = stage.name;
    stage.create = (deps) => {
      const run = create(deps);
      return (passage) => {
        mark(`${name}Entered`);
        const out = run(passage);
        if (out instanceof Promise)
          out.then(
            () => mark(name),
            () => {},
          );
        else mark(name);
        return out;
      };
    };
  }
}

// With TTFB_CPU_PROF set, V8's sampling profiler runs too (--cpu-prof is refused in NODE_OPTIONS), a sample
// every 50 µs, and each SIGUSR2 writes the profile since the last one beside the records.
const profiling = isMainThread && process.env.TTFB_CPU_PROF !== undefined;
const session = profiling ? new Session() : null;
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
if (profiling) {
  session.connect();
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 50 });
  // The event loop's waits marked "(idle)", as --cpu-prof marks them.
  process._startProfilerIdleNotifier();
  await post("Profiler.start");
}

async function writeOut() {
  const out = process.env.TTFB_STAGES_OUT;
  const written = records;
  records = [];
  current = null;
  if (profiling) {
    const { profile } = await post("Profiler.stop");
    writeFileSync(`${out}.cpuprofile`, JSON.stringify(profile));
    await post("Profiler.start");
  }
  // Last: the reader waits for this file.
  writeFileSync(out, JSON.stringify(written));
}

if (isMainThread)
  process.on("SIGUSR2", () => {
    writeOut().catch((error) => process.stderr.write(`ttfb hook: ${error.message}\n`));
  });
