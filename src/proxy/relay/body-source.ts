// The request body as http-proxy-3 takes it (`options.buffer`), without a stream per request. http-proxy-3
// (pinned with ~ in package.json) sends `options.buffer` with `buffer.pipe(proxyRequest)`; the body is already
// in memory, so this stand-in answers that one call by ending the upstream request with the body in one write,
// instead of the stream, the async iterator and the ticks Readable.from would cost every request.
// test/proxy/body-source.test.ts checks that http-proxy-3 still takes this path and the body arrives whole;
// bench/fast-paths.ts measures it against Readable.from.

import type { Readable, Writable } from "node:stream";

export function bodySource(body: Buffer): Readable {
  const source = {
    pipe(destination: Writable): Writable {
      destination.end(body);
      return destination;
    },
  };
  return source as unknown as Readable;
}
