// Cutting one Redis connection, found by its name (CLIENT SETNAME), as a network fault or a Redis-side kill
// would: never CLIENT KILL TYPE, which would cut other test files' connections running alongside.

import type { Redis } from "ioredis";

export async function killClientNamed(admin: Redis, name: string): Promise<void> {
  const list = String(await admin.call("CLIENT", "LIST"));
  const ids = list
    .split("\n")
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /^id=(\d+)/.exec(line)?.[1])
    .filter((id): id is string => id !== undefined);
  if (ids.length === 0) throw new Error(`no Redis connection is named ${name}`);
  for (const id of ids) await admin.call("CLIENT", "KILL", "ID", id);
}
