// Turns a request's credential into the key it names: `Authorization: Bearer sk-tunnel-…`, or — as
// Anthropic's SDKs and Claude Code send it — `x-api-key: sk-tunnel-…` when there is no Authorization header. The hash -> key mapping never changes once
// written, so it is cached in-process: a known key costs no Redis round trip here, and the request's one
// round trip (which also reads revocation, expiry and budget from the key record) happens later. Unknown
// hashes are cached briefly too, so that a client hammering with a wrong key does not hammer Redis; a
// negative entry can never hide a new key, whose value nobody could have sent before it was created.

import type { IncomingHttpHeaders } from "node:http";
import { LRUCache } from "lru-cache";
import { GatewayError } from "../core/errors.js";
import type { KeyRef } from "../core/key-ref.js";
import type { KeyStore } from "../store/keys/key-store.js";
import { hashApiKey, isWellFormedApiKey } from "./api-key.js";

export interface AuthenticatorOptions {
  /** Accept the key in an x-api-key header (auth.acceptXApiKey). */
  acceptXApiKey?: boolean;
  maxCachedKeys?: number;
  maxCachedMisses?: number;
  missTtlMs?: number;
}

const BEARER = /^Bearer +(\S+) *$/i;

export interface Credential {
  ref: KeyRef;
  /** The key value as sent; never to be logged, stored or forwarded. */
  token: string;
  /** Its SHA-256: the reserve script refuses a value the key no longer has (a rotation replaced it). */
  hash: string;
}

export class Authenticator {
  private readonly known: LRUCache<string, KeyRef>;
  private readonly unknown: LRUCache<string, true>;
  private readonly acceptXApiKey: boolean;

  constructor(
    private readonly keys: Pick<KeyStore, "lookup">,
    options: AuthenticatorOptions = {},
  ) {
    this.acceptXApiKey = options.acceptXApiKey ?? true;
    this.known = new LRUCache({ max: options.maxCachedKeys ?? 100_000 });
    this.unknown = new LRUCache({ max: options.maxCachedMisses ?? 10_000, ttl: options.missTtlMs ?? 60_000 });
  }

  /**
   * The key the request's headers name, and the credential itself (so that the forwarder can make sure it
   * goes nowhere). Throws missing_api_key, invalid_api_key, or a Redis error when the mapping is not cached
   * and Redis cannot be asked.
   */
  async resolve(headers: IncomingHttpHeaders): Promise<Credential> {
    return this.resolveNow(headers);
  }

  /**
   * resolve(), without a promise when the key is in the in-process cache (the request path's usual case):
   * a value, or a throw, at once; a promise only when Redis is asked.
   */
  resolveNow(headers: IncomingHttpHeaders): Credential | Promise<Credential> {
    const xApiKey = headers["x-api-key"];
    const token =
      headers.authorization === undefined && this.acceptXApiKey && typeof xApiKey === "string"
        ? xApiKey.trim()
        : bearerToken(headers.authorization);
    if (!isWellFormedApiKey(token)) throw new GatewayError("invalid_api_key");
    const hash = hashApiKey(token);
    const cached = this.known.get(hash);
    if (cached) return { ref: cached, token, hash };
    if (this.unknown.has(hash)) throw new GatewayError("invalid_api_key");
    return this.lookup(token, hash);
  }

  private async lookup(token: string, hash: string): Promise<Credential> {
    const ref = await this.keys.lookup(hash);
    if (!ref) {
      this.unknown.set(hash, true);
      throw new GatewayError("invalid_api_key");
    }
    this.known.set(hash, ref);
    return { ref, token, hash };
  }
}

/** The credential of a Bearer Authorization header; missing_api_key when there is none. */
export function bearerToken(authorization: string | undefined): string {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (!match) throw new GatewayError("missing_api_key");
  return match[1] as string;
}
