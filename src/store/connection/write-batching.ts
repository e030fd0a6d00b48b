// Redis commands issued during one turn of the event loop leave in one system call. Under load a turn
// handles many sockets' events at once — requests arriving, upstream responses ending — and each of them
// runs a script (reserve, settle); written one by one, every command costs a write(2) on the Redis socket
// and Redis a read for each. Corking the socket at the first command of a turn and uncorking it when the
// turn's I/O callbacks are done (setImmediate) sends them together, in order, with nothing held back past
// the turn. Replies still match commands one to one: that is the Redis protocol's pipelining, which ioredis
// already relies on for concurrent commands on one connection.
//
// It pays where a turn carries several commands (a loaded gateway, keys that reserve per request), and costs a
// little where each turn carries one; bench/fast-paths.ts measures both against ioredis writing each command
// on its own (figures in docs/benchmarks.md). Not ioredis' enableAutoPipelining: that sends at most one batch
// at a time and holds every later command until the whole batch has been answered, which adds a round trip
// of latency to requests. A Cluster spreads commands over several connections and is left as it is.

import type { Socket } from "node:net";

const BATCHED = Symbol("tunnel-gateway.batched-per-turn");
type Batched = Socket & { [BATCHED]?: true };

/**
 * Makes a connection's socket gather the writes of each event-loop turn: the first write of a turn corks it
 * and schedules the uncork for when the turn's I/O callbacks are done. Installed once per socket, where the
 * connection is made (redis.ts); ioredis writes each command with `stream.write`, which is what is wrapped
 * (ioredis is pinned with ~ in package.json; test/store/connection/write-batching.test.ts counts the socket's system
 * writes, so it fails if this stops taking effect).
 */
export function batchWritesPerTurn(socket: Socket | undefined): void {
  if (socket === undefined || (socket as Batched)[BATCHED]) return;
  (socket as Batched)[BATCHED] = true;
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    if (!corked) {
      corked = true;
      this.cork();
      setImmediate(uncork);
    }
    return write.apply(this, args);
  } as Socket["write"];
}
