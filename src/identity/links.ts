// One-time links: invitations and set-password links. The link's token is a 256-bit secret carried in the
// URL's fragment (<dashboard>/#/invite/<token>, <dashboard>/#/set-password/<token>), which browsers never
// send to a server, so it reaches no access log; Redis keeps only its SHA-256. A link is taken once, with
// GETDEL: of two uses racing, exactly one wins. Expiry is judged on the gateway's clock.

import { GatewayError } from "../core/errors.js";
import type { OneTimeStore } from "../store/people/one-time-store.js";
import { newSecret, sha256 } from "./secrets.js";

export type LinkPayload =
  | { kind: "invitation"; accountId: string; invitationId: string; expiresAt: number }
  | { kind: "password"; userId: string; expiresAt: number };

export type LinkKind = LinkPayload["kind"];

const PATHS: Record<LinkKind, string> = { invitation: "invite", password: "set-password" };

export function linkUrl(base: string, kind: LinkKind, token: string): string {
  return `${base}/#/${PATHS[kind]}/${token}`;
}

export class Links {
  constructor(
    private readonly store: OneTimeStore,
    private readonly now: () => number,
  ) {}

  /** Makes a link; returns its token (for the URL) and its hash (its name in Redis). */
  async issue(payload: LinkPayload): Promise<{ token: string; hash: string }> {
    const token = newSecret();
    const hash = sha256(token);
    await this.store.put(hash, JSON.stringify(payload), payload.expiresAt - this.now());
    return { token, hash };
  }

  /** The link a token names, if it is still valid; it stays valid (nothing is taken). */
  async peek<K extends LinkKind>(token: unknown, kind: K): Promise<Extract<LinkPayload, { kind: K }>> {
    if (typeof token !== "string" || token.length > 100) throw invalid(kind);
    const json = await this.store.peek(sha256(token));
    const payload = json ? (JSON.parse(json) as LinkPayload) : null;
    if (!payload || payload.kind !== kind || this.now() >= payload.expiresAt) throw invalid(kind);
    return payload as Extract<LinkPayload, { kind: K }>;
  }

  /** Takes the link: from now on it is invalid. Refuses one another request took first. */
  async take(token: string, kind: LinkKind): Promise<void> {
    if ((await this.store.take(sha256(token))) === null) throw invalid(kind);
  }

  /**
   * Puts back a link taken by a change that was refused after it (Redis refused the grant an invitation
   * gives): the same token works again until the link's own expiry, as if it had never been used.
   */
  async giveBack(token: string, payload: LinkPayload): Promise<void> {
    const left = payload.expiresAt - this.now();
    if (left > 0) await this.store.put(sha256(token), JSON.stringify(payload), left);
  }

  async cancel(hash: string): Promise<void> {
    await this.store.delete(hash);
  }
}

function invalid(kind: LinkKind): GatewayError {
  return new GatewayError(kind === "invitation" ? "invitation_invalid" : "password_link_invalid");
}
