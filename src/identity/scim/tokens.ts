// SCIM tokens: the bearer credential an identity provider's provisioning (Okta, Entra ID) sends to /scim/v2,
// made by an operator (CLI or admin API), named, shown once (`sk-tunnel-scim-` + 64 hex), stored as its
// SHA-256, revocable at once. A SCIM token is good for /scim/v2 only and nothing else is good there: the
// admin API refuses it, and SCIM refuses every other credential.

import { randomBytes } from "node:crypto";
import { hashApiKey, keyHint, randomToken } from "../../auth/api-key.js";
import { bearerToken } from "../../auth/authenticator.js";
import { GatewayError, redisRefusal } from "../../core/errors.js";
import { validateName } from "../../core/validate.js";
import { type Actor, actorName } from "../../store/audit/audit-store.js";
import type { ScimTokenRecord, ScimTokenStore } from "../../store/people/scim-token-store.js";
import type { ScimChanges } from "./changes.js";

export const SCIM_TOKEN_PREFIX = "sk-tunnel-scim-";
const SCIM_TOKEN = /^sk-tunnel-scim-[0-9a-f]{64}$/;

export class ScimTokens {
  constructor(
    private readonly store: ScimTokenStore,
    private readonly changes: ScimChanges,
    private readonly now: () => number,
  ) {}

  /** Makes a token; its value is in the answer only. */
  async create(name: unknown, actor: Actor): Promise<{ record: ScimTokenRecord; value: string }> {
    const value = SCIM_TOKEN_PREFIX + randomBytes(32).toString("hex");
    const record: ScimTokenRecord = {
      id: `scim_${randomToken(20)}`,
      name: validateName(name),
      hash: hashApiKey(value),
      hint: keyHint(value),
      createdAt: this.now(),
      createdBy: actorName(actor),
      lastUsedAt: null,
    };
    try {
      await this.changes.tokenCreated(record, actor);
    } catch (error) {
      throw redisRefusal(error, `to create the SCIM token ${JSON.stringify(record.name)}`);
    }
    return { record, value };
  }

  async list(): Promise<ScimTokenRecord[]> {
    return this.store.list();
  }

  /** Revokes a token: the next request with it gets 401. */
  async revoke(id: string, actor: Actor): Promise<ScimTokenRecord> {
    const token = await this.store.get(id);
    if (!token) throw new GatewayError("scim_token_not_found", `no SCIM token ${id}`);
    await this.changes.tokenRevoked(token, actor);
    return token;
  }

  /** The SCIM client an Authorization header names, as the actor of its changes; 401 for anything else. */
  async authenticate(authorization: string | undefined): Promise<Actor> {
    let value: string;
    try {
      value = bearerToken(authorization);
    } catch {
      throw new GatewayError("scim_unauthorized");
    }
    if (!SCIM_TOKEN.test(value))
      throw new GatewayError(
        "scim_unauthorized",
        "This is not a SCIM token: make one with `scim-tokens create`.",
      );
    const token = await this.store.byHash(hashApiKey(value));
    if (!token)
      throw new GatewayError("scim_unauthorized", "Unknown SCIM token: it was revoked, or never issued.");
    await this.store.touch(token.id, this.now());
    return { kind: "scim", tokenId: token.id, tokenName: token.name };
  }
}
