// Redis commands issued during one turn of the event loop leave in one system call. Under load a turn
// handles many sockets' events at once — requests arriving, upstream responses ending — and each of them
// runs a script (reserve, settle); written one by one, every command costs a write(2) on the Redis socket
// and Redis a read for each. Corking the socket at the first command of a turn and uncorking it when the
// turn's I/O callbacks are done (setImmediate) sends them together, in order, with nothing held back past
// the turn. Replies still match commands one to one: that is the Redis protocol's pipelining, which ioredis
// already relies on for concurrent commands on one connection.
//
// Not ioredis' enableAutoPipelining: that sends at most one batch at a time and holds every later command
// until the whole batch has been answered, which added a round trip of latency to requests in the benchmark.
// A Cluster spreads commands over several connections and is left as it is.

import type { Socket } from "node:net";
import type { RedisClient } from "./scripts.js";

const CORKED = Symbol("tunnel-gateway.corked-until-immediate");
type Corkable = Socket & { [CORKED]?: boolean };

/** Holds this connection's writes until the end of the current event-loop turn, then sends them at once. */
export function batchWritesOfThisTurn(client: RedisClient): void {
  const stream = (client as { stream?: Corkable }).stream;
  if (stream === undefined || stream[CORKED] || typeof stream.cork !== "function") return;
  stream[CORKED] = true;
  stream.cork();
  setImmediate(uncork, stream);
}

function uncork(stream: Corkable): void {
  stream[CORKED] = false;
  stream.uncork();
}
