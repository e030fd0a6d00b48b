// Keys of the wrong type in the way of a MULTI. EXEC runs every queued command even when one is refused at
// run time (WRONGTYPE) and reports that one's error only in its answer, so a transaction that writes a record
// and then its audit entry would keep the record when the audit list is in the way, and say nothing. The
// types are checked before the MULTI (an ACL's refusal is caught when the commands are queued, and discards
// the whole transaction), and every answer of EXEC is read for an error.

import type { ChainableCommander } from "ioredis";
import type { RedisClient } from "./redis.js";

export type KeyType = "hash" | "list" | "set" | "zset" | "string" | "stream";

/** A refusal as Redis words it, naming the key, of the class callers tell Redis' refusals by. */
function refusal(message: string): Error {
  return Object.assign(new Error(message), { name: "ReplyError" });
}

/** Refuses, naming the key, when one of `expected`'s keys holds another type than the one to be written. */
export async function requireKeyTypes(
  redis: RedisClient,
  expected: Readonly<Record<string, KeyType>>,
): Promise<void> {
  for (const [key, type] of Object.entries(expected)) {
    const found = await redis.type(key);
    if (found !== "none" && found !== type)
      throw refusal(`WRONGTYPE ${key} holds a ${found} where a ${type} belongs; nothing was written`);
  }
}

/** Runs the MULTI and throws the first command's error, which EXEC itself does not. */
export async function execOrThrow(multi: ChainableCommander): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
}
