// Loads the Lua scripts of src/store/lua (one per file, named <name>-<number of keys>.lua, or <name>-n.lua for
// a script that takes a varying number of keys), resolves their `--- @include "<fragment>"` lines from
// lua/includes/, and registers each with ioredis `defineCommand`, so that it runs by EVALSHA and is reloaded
// transparently after a Redis restart.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isScriptError } from "../core/redis-errors.js";
import type { RedisClient } from "./connection/redis.js";

const LUA_DIR = fileURLToPath(new URL("./lua/", import.meta.url));
const SCRIPT_FILE = /^([A-Za-z]+)-(\d+|n)\.lua$/;
const INCLUDE = /^--- @include "([A-Za-z]+)"\s*$/gm;

export interface LuaScript {
  name: string;
  /** null for a script whose callers pass a varying number of keys. */
  numberOfKeys: number | null;
  lua: string;
}

/** Script source with its includes expanded in dependency order, each fragment once. */
export function expandIncludes(source: string, readFragment: (name: string) => string): string {
  const included = new Set<string>();
  const expand = (text: string): string =>
    text.replace(INCLUDE, (_line, name: string) => {
      if (included.has(name)) return "";
      included.add(name);
      return expand(readFragment(name));
    });
  return expand(source);
}

export function loadScripts(dir = LUA_DIR): LuaScript[] {
  const readFragment = (name: string) => readFileSync(`${dir}includes/${name}.lua`, "utf8");
  return readdirSync(dir)
    .map((file) => SCRIPT_FILE.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([file, name, keys]) => ({
      name: name as string,
      numberOfKeys: keys === "n" ? null : Number(keys),
      lua: expandIncludes(readFileSync(dir + file, "utf8"), readFragment),
    }));
}

let cached: LuaScript[] | undefined;
const keyCounts = new Map<string, number | null>();
/** Connections the scripts are registered on: each is, once, at its first script call. */
const defined = new WeakSet<RedisClient>();

function defineScripts(client: RedisClient): void {
  cached ??= loadScripts();
  for (const script of cached) {
    keyCounts.set(script.name, script.numberOfKeys);
    // Without numberOfKeys, ioredis expects the count as the first argument (runScript passes it).
    client.defineCommand(script.name, { numberOfKeys: script.numberOfKeys ?? undefined, lua: script.lua });
  }
  defined.add(client);
}

/** Every script of lua/, by name (the metric of script errors has a series for each from the start). */
export const SCRIPT_NAMES = [
  "createAccount",
  "topUpAccount",
  "createKey",
  "revokeKey",
  "updateKey",
  "rotateKey",
  "setKeyDisabled",
  "setAccountToken",
  "reserve",
  "lease",
  "settle",
  "extendReservations",
  "setAccountAlerts",
  "setAccountWebhook",
  "fireDueEvents",
  "claimEvents",
  "finishDelivery",
  "findRequest",
  "createUser",
  "updateUser",
  "setGrant",
  "recordSignInFailure",
  "createApiToken",
  "deleteApiToken",
  "appendAudit",
  "setInvitation",
  "setAccountSharing",
  "setAccountBudgets",
  "setKeySharing",
  "syncUpstreamSlots",
  "claimProviderChecks",
] as const;

export type ScriptName = (typeof SCRIPT_NAMES)[number];

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** Told of every script Redis refused for good (isScriptError) or that was called wrongly (a bug of ours). */
export type ScriptErrorObserver = (script: ScriptName, error: Error) => void;

const observers = new WeakMap<RedisClient, ScriptErrorObserver>();

/**
 * Reports every script error on this connection, whoever called the script and whatever it does with the
 * error (a lease call, a webhook claim, a settlement that will be retried): a feature whose script fails
 * must never be off without a word (docs/redis.md, "Script errors").
 */
export function observeScriptErrors(client: RedisClient, observer: ScriptErrorObserver): void {
  observers.set(client, observer);
}

/**
 * Runs a script registered by defineScripts; `keys` must match the script's number of keys (any number, for
 * a <name>-n script, which the script itself checks against its arguments). Most scripts
 * answer a list whose first element is a status code; the caller states the shape it expects. Scripts run
 * in the same event-loop turn reach Redis in one write (write-batching.ts, installed with the connection).
 */
export function runScript<Reply = unknown[]>(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<Reply> {
  if (!defined.has(client)) defineScripts(client);
  const observer = observers.get(client);
  const count = keyCounts.get(name);
  // A wrong count would silently shift a key into ARGV; refuse it instead.
  if (count === undefined || (count !== null && keys.length !== count)) {
    const error = new Error(`script ${name} takes ${count} keys, got ${keys.length}`);
    observer?.(name, error);
    return Promise.reject(error);
  }
  const call = (client as unknown as Record<ScriptName, ScriptCall>)[name];
  const reply = (
    count === null ? call.call(client, keys.length, ...keys, ...args) : call.call(client, ...keys, ...args)
  ) as Promise<Reply>;
  if (observer === undefined) return reply;
  return reply.catch((error: unknown) => {
    if (isScriptError(error)) observer(name, error as Error);
    throw error;
  });
}
