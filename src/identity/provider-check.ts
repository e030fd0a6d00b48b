// People signed in with an identity provider are asked about again between sign-ins, so that their sessions
// and API tokens follow the provider (docs/sign-in.md, re-checks): every signIn.providerCheck.intervalMinutes
// a replica claims the due links (one sorted set shared by the replicas) and asks each provider with the
// person's refresh token, or their access token while it lasts (oidc.ts recheck). Then:
// - confirmed: the mapping rules are applied to what the provider says now (a group left takes its role
//   away, a group joined gives one), and the next check is scheduled;
// - refused (the provider no longer vouches for the person — deleted, signed out there, tokens revoked — or
//   nothing is left to ask with): the person's sessions through that provider end, the grants it gave are
//   taken away — so their API tokens lose them too — and its tokens are forgotten until the next sign-in.
//   The person is not disabled, and keeps the grants people gave them: a refused token is no proof they
//   left the company (deprovision by SCIM, or `users disable`);
// - unreachable: nothing changes while the provider last confirmed the person within graceMinutes; past it,
//   their sessions through it end (a browser session needs a confirmation that recent), their grants stay
//   (automation is not cut off by an outage), and the check is retried at every interval.
// Each check is a provider.check event; a refusal and a role change are in the person's audit log.

import type { Logger } from "pino";
import type { IdentityEvents } from "../core/channels.js";
import { oidcSource } from "../core/roles.js";
import type { Actor } from "../store/audit/audit-store.js";
import type { DueCheck, ProviderLinkRecord, ProviderLinkStore } from "../store/people/provider-link-store.js";
import type { UserRecord } from "../store/people/user-record.js";
import type { OidcProviders, ProviderTokens } from "./oidc.js";
import type { ProviderPeople } from "./oidc-person.js";
import type { RoleGrants } from "./role-grants.js";
import type { Sessions } from "./sessions.js";
import type { Users } from "./users.js";

/** Most links one run checks; the rest wait for the next run (or another replica). */
const BATCH = 100;

export interface ProviderCheckDeps {
  oidc: OidcProviders;
  people: ProviderPeople;
  links: ProviderLinkStore;
  sessions: Sessions;
  users: Users;
  grants: Pick<RoleGrants, "applyProviderGrants" | "memberships">;
  events: IdentityEvents;
  logger: Logger;
  intervalMs: number;
  graceMs: number;
  now: () => number;
}

export type CheckOutcome = "confirmed" | "roles_changed" | "refused" | "unreachable" | "gone";

export class ProviderChecks {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly deps: ProviderCheckDeps) {}

  /**
   * Checks the links that are due on the injected clock; returns how many it checked. A run already under
   * way is joined, not doubled.
   */
  runDue(): Promise<number> {
    this.running ??= this.checkDue().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Runs due checks on a timer (real time; what is due is judged on the injected clock). */
  start(): void {
    if (this.deps.intervalMs <= 0 || this.timer) return;
    const every = Math.min(this.deps.intervalMs, 60_000);
    this.timer = setInterval(() => {
      this.runDue().catch((error: unknown) =>
        this.deps.logger.warn(
          { err: (error as Error).message },
          "re-checks with the identity providers failed",
        ),
      );
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  private async checkDue(): Promise<number> {
    const now = this.deps.now();
    // Leased for an interval: a replica that dies mid-check leaves it to be claimed again.
    const due = await this.deps.links.claimDue(now, Math.max(this.deps.intervalMs, 60_000), BATCH);
    for (const check of due) await this.check(check);
    return due.length;
  }

  /** Checks one link now; returns what came of it. */
  async check(due: DueCheck): Promise<CheckOutcome> {
    const { deps } = this;
    const link = await deps.links.get(due.userId, due.providerId);
    const user = link && (await deps.users.get(due.userId));
    let provider: ReturnType<OidcProviders["settings"]> | null = null;
    try {
      provider = deps.oidc.settings(due.providerId);
    } catch {
      // A provider removed from the configuration: its links are not checked any more.
    }
    if (!link || !user || !provider || user.status === "disabled") {
      await deps.links.unschedule(due);
      return "gone";
    }
    const answer = await deps.oidc.recheck(provider.id, link.subject, this.open(link));
    const fields = { userId: user.id, provider: provider.id };
    const actor: Actor = {
      kind: "user",
      userId: user.id,
      name: user.name,
      via: "oidc",
      provider: provider.id,
    };
    if (answer.kind === "confirmed") {
      const before = await this.grantsFrom(user.id, provider.id);
      await deps.people.applyMapping(user, provider, answer.profile);
      const after = await this.grantsFrom(user.id, provider.id);
      await deps.people.keep(user.id, provider, link.subject, answer.tokens);
      const changed = before !== after;
      deps.events.publish("provider.check", changed ? "roles_changed" : "confirmed", {
        ...fields,
        ...(changed && { detail: after || "no roles" }),
      });
      if (changed)
        await deps.users.record(user.id, actor, "user.provider_check", {
          outcome: "roles_changed",
          roles: after,
        });
      return changed ? "roles_changed" : "confirmed";
    }
    if (answer.kind === "refused") {
      await this.refused(user, provider.id, link, answer.reason, actor);
      return "refused";
    }
    deps.events.publish("provider.check", "unreachable", { ...fields, detail: answer.reason });
    await deps.links.schedule(due, deps.now() + deps.intervalMs);
    if (deps.now() - link.confirmedAt > deps.graceMs) {
      const ended = await deps.sessions.revokeProvider(user.id, provider.id);
      if (ended > 0)
        deps.events.publish("session.revoke", "provider_unconfirmed", { ...fields, count: ended });
    }
    return "unreachable";
  }

  /** The provider no longer vouches for the person: its sessions end, its grants go, its tokens are forgotten. */
  private async refused(
    user: UserRecord,
    providerId: string,
    link: ProviderLinkRecord,
    reason: string,
    actor: Actor,
  ): Promise<void> {
    const { deps } = this;
    const fields = { userId: user.id, provider: providerId };
    deps.events.publish("provider.check", "refused", { ...fields, detail: reason });
    await deps.links.dropTokens(link);
    const ended = await deps.sessions.revokeProvider(user.id, providerId);
    if (ended > 0) deps.events.publish("session.revoke", "provider_refused", { ...fields, count: ended });
    await deps.grants.applyProviderGrants(
      user,
      oidcSource(providerId),
      { operator: null, accounts: new Map() },
      actor,
    );
    await deps.users.record(user.id, actor, "user.provider_check", {
      outcome: "refused",
      reason,
      sessions_ended: ended,
    });
  }

  /** The link's tokens in plain text, as far as they can be opened. */
  private open(link: ProviderLinkRecord): ProviderTokens {
    const cipher = this.deps.oidc.cipher(link.providerId);
    const open = (sealed: string | null) => (cipher && sealed !== null ? cipher.open(sealed) : null);
    return { refresh: open(link.refresh), access: open(link.access), accessExpiresAt: link.accessExpiresAt };
  }

  /** The grants a provider gives the person, as one comparable text ("operator; acme=member"). */
  private async grantsFrom(userId: string, providerId: string): Promise<string> {
    const source = oidcSource(providerId);
    const user = await this.deps.users.get(userId);
    const parts: string[] = [];
    const operator = user?.operatorGrants[source];
    if (operator) parts.push(operator);
    for (const membership of await this.deps.grants.memberships(userId)) {
      const role = membership.grants[source];
      if (role) parts.push(`${membership.accountId}=${role}`);
    }
    return parts.join("; ");
  }
}
