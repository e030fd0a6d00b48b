// Whether a request arrived over HTTPS: judged by the socket, or — only when the peer is a trusted proxy
// (security.trustedProxies) — by the X-Forwarded-Proto it sent. Anyone else's forwarded headers are ignored,
// so a client cannot claim HTTPS for a plain-text connection that exposed its key.

import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Config } from "../config/schema.js";
import { CidrSet } from "../core/cidr.js";

/** Paths that answer plain HTTP even when HTTPS is required: the kubelet's probes carry no key. */
const PROBES = new Set(["/healthz", "/readyz"]);

export class TransportSecurity {
  readonly requireHttps: boolean;
  /** The Strict-Transport-Security value for HTTPS answers, or null when switched off. */
  readonly hsts: string | null;
  private readonly trusted: CidrSet;

  constructor(security: Config["security"]) {
    this.requireHttps = security.requireHttps;
    this.trusted = new CidrSet(security.trustedProxies);
    this.hsts =
      security.hstsMaxAgeSeconds > 0 ? `max-age=${security.hstsMaxAgeSeconds}; includeSubDomains` : null;
  }

  isSecure(req: IncomingMessage): boolean {
    if ((req.socket as TLSSocket).encrypted) return true;
    if (this.trusted.empty || !this.trusted.has(req.socket.remoteAddress)) return false;
    const proto = req.headers["x-forwarded-proto"];
    const first = typeof proto === "string" ? proto.split(",")[0]?.trim().toLowerCase() : undefined;
    return first === "https";
  }

  /**
   * The client's address: the peer's, or — when the peer is a trusted proxy — the nearest address in
   * X-Forwarded-For that is not one (what the last trusted proxy saw connect to it).
   */
  clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "";
    if (this.trusted.empty || !this.trusted.has(peer)) return peer;
    const header = req.headers["x-forwarded-for"];
    const hops = (typeof header === "string" ? header : "").split(",").map((hop) => hop.trim());
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as string;
      if (hop !== "" && !this.trusted.has(hop)) return hop;
    }
    return peer;
  }

  /** Whether a request on `path` must be refused for arriving over plain HTTP. */
  refuses(path: string, secure: boolean): boolean {
    return this.requireHttps && !secure && !PROBES.has(path);
  }
}
