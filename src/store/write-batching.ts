// Redis commands issued during one turn of the event loop leave in one system call. Under load a turn
// handles many sockets' events at once — requests arriving, upstream responses ending — and each of them
// runs a script (reserve, settle); written one by one, every command costs a write(2) on the Redis socket
// and Redis a read for each. Corking the socket at the first command of a turn and uncorking it when the
// turn's I/O callbacks are done (setImmediate) sends them together, in order, with nothing held back past
// the turn. Replies still match commands one to one: that is the Redis protocol's pipelining, which ioredis
// already relies on for concurrent commands on one connection.
//
// Work that may wait for a while but must eventually be written (settlements) can join the write of the
// next turn that writes anyway (joinTurnWrites): it then costs no write, no wake-up of Redis and no
// wake-up of the gateway for the reply of its own.
//
// Not ioredis' enableAutoPipelining: that sends at most one batch at a time and holds every later command
// until the whole batch has been answered, which added a round trip of latency to requests in the benchmark.
// A Cluster spreads commands over several connections and is left as it is.

import type { Socket } from "node:net";
import type { RedisClient } from "./scripts.js";

const CORKED = Symbol("tunnel-gateway.corked-until-immediate");
type Corkable = Socket & { [CORKED]?: boolean };

/** Per connection, what runs at the end of each turn that writes, before the write leaves. */
const joiners = new WeakMap<RedisClient, Set<() => void>>();

/** Holds this connection's writes until the end of the current event-loop turn, then sends them at once. */
export function batchWritesOfThisTurn(client: RedisClient): void {
  const stream = (client as { stream?: Corkable }).stream;
  if (stream === undefined || stream[CORKED] || typeof stream.cork !== "function") return;
  stream[CORKED] = true;
  stream.cork();
  setImmediate(endOfTurn, client, stream);
}

/**
 * Runs `join` at the end of every event-loop turn in which this connection writes (through
 * batchWritesOfThisTurn), just before the write leaves; commands it issues go out in that same write.
 * Returns the function that stops it.
 */
export function joinTurnWrites(client: RedisClient, join: () => void): () => void {
  let set = joiners.get(client);
  if (set === undefined) {
    set = new Set();
    joiners.set(client, set);
  }
  set.add(join);
  return () => set.delete(join);
}

function endOfTurn(client: RedisClient, stream: Corkable): void {
  try {
    const set = joiners.get(client);
    if (set !== undefined) for (const join of set) join();
  } finally {
    // Whatever a joiner did, the turn's commands must leave.
    stream[CORKED] = false;
    stream.uncork();
  }
}
