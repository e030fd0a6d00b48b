// The money path through real gateways, for the model's commands: a run on one or two gateways of a fleet
// (gateway-fleet.ts), on an account of its own. Requests go over HTTP with the key's value; a refusal is read
// from the error body; a request is settled once it is in its key's recent requests (the settle script writes
// both at once). Kill, release and expiry are not driven here (a client leaving is charged by estimate, which
// the model does not know; the reservation keeper extends running requests' reservations on a timer of its
// own); the billing layer's runs drive them (billing-system.ts).

import type { LeaseService } from "../../../src/billing/lease-service.js";
import type { Period } from "../../../src/core/periods.js";
import type { TestGateway } from "../gateway.js";
import { waitUntil } from "../wait.js";
import type { GatewayFleet } from "./gateway-fleet.js";
import type { Mode, Usage, WindowSpec } from "./model.js";
import type { MoneyOperator } from "./operator.js";
import type { Admission, MoneySystem, RequestSpec, Snapshot } from "./system.js";

interface Running {
  slot: number;
  keyId: string;
  response: Promise<Response>;
}

export class GatewaySystem implements MoneySystem {
  readonly accountId: string;
  private readonly running = new Map<string, Running>();
  /** Where each gateway's log was when the run began: what it logs from then on is this run's. */
  private readonly logStart: number[];

  constructor(
    private readonly fleet: GatewayFleet,
    private readonly operator: MoneyOperator,
    private readonly replicas: number,
  ) {
    this.accountId = operator.accountId;
    this.logStart = fleet.gateways.map((gateway) => gateway.logs.length);
  }

  replicaId(slot: number): string | null {
    return this.leases(slot)?.book.replicaId ?? null;
  }

  /** The request's body is padded to `wanted` bytes: the worst case counts every byte as a prompt token. */
  promptTokens(wanted: number): number {
    return Math.max(wanted, Buffer.byteLength(bodyOf(this.idOf("r00000"), "cached", 1000, 0)));
  }

  createKey(windows: readonly WindowSpec[]) {
    return this.operator.createKey(windows);
  }

  async setAccount(mode: Mode, windows: readonly WindowSpec[]): Promise<void> {
    await this.operator.setAccount(mode, windows);
    await this.changeSeen();
  }

  async topUp(amount: number): Promise<void> {
    await this.operator.topUp(amount);
    await this.changeSeen();
  }

  async start(spec: RequestSpec): Promise<Admission> {
    const gateway = this.fleet.gateways[spec.slot] as TestGateway;
    const key = this.operator.keys.get(spec.key.keyId)?.value as string;
    // The fleet serves many runs: the request's id is made unique to this one's account.
    const id = this.idOf(spec.id);
    const base = Buffer.byteLength(bodyOf(id, spec.price.name, spec.cap, 0));
    const body = bodyOf(id, spec.price.name, spec.cap, spec.promptMax - base);
    const admittedBefore = this.leases(spec.slot)?.book.admitted ?? 0;
    const held = this.fleet.held(id);
    const response = gateway.fetch("/v1/chat/completions", {
      method: "POST",
      key,
      headers: { "content-type": "application/json", "x-request-id": id },
      body,
    });
    const first = await Promise.race([held.arrival.then(() => "forwarded"), response.then(() => "answered")]);
    if (first === "forwarded") {
      this.running.set(spec.id, { slot: spec.slot, keyId: spec.key.keyId, response });
      const leased = (this.leases(spec.slot)?.book.admitted ?? 0) > admittedBefore;
      return { ok: true, path: leased ? "lease" : "reserve", reservationId: null, leaseId: null };
    }
    this.fleet.forget(id);
    const res = await response;
    const refusal = (await res.json()) as {
      error: { code: string; window?: { scope: "key" | "account"; period: Period } };
    };
    if (res.status === 200)
      throw new Error(`request ${spec.id} was answered without reaching the model server`);
    return {
      ok: false,
      code: refusal.error.code,
      scope: refusal.error.window?.scope ?? null,
      period: refusal.error.window?.period ?? null,
      figures: null,
      exact: !this.fleet.leases,
    };
  }

  async finish(_slot: number, requests: readonly { id: string; usage: Usage }[]): Promise<void> {
    const ended = requests.map(({ id, usage }) => {
      const run = this.running.get(id) as Running;
      this.running.delete(id);
      this.fleet.held(this.idOf(id)).finish(usage);
      return { id: this.idOf(id), run };
    });
    for (const { run } of ended) await (await run.response).text();
    // Settled once the request is in its key's recent requests: the settle script writes both at once.
    await waitUntil(async () => {
      for (const { id, run } of ended) {
        const recent = await this.operator.stores.requestLog.recent(this.accountId, run.keyId, 0);
        if (!recent.some((entry) => entry.request_id === id)) return false;
      }
      return true;
    }, "the settlements written");
  }

  release(): Promise<void> {
    throw new Error("a client leaving is not driven through the gateways");
  }

  async tick(): Promise<void> {
    // The gateways tick their lease books on a timer of their own.
  }

  kill(): Promise<void> {
    throw new Error("a replica is not killed among the in-process gateways");
  }

  purge(): Promise<void> {
    return this.operator.purge();
  }

  snapshot(): Promise<Snapshot> {
    return this.operator.snapshot();
  }

  ledger(days: readonly string[]) {
    return this.operator.ledger(days);
  }

  /** Σ the costs the gateways' request log lines name for this run's account (µ₽). */
  loggedCharges(): number {
    return this.lines()
      .filter((line) => line.msg === "request" && line.account === this.accountId)
      .reduce((sum, line) => sum + Math.round((line.cost_rub as number) * 1e6), 0);
  }

  async quiesce(): Promise<void> {
    for (const gateway of this.fleet.gateways.slice(0, this.replicas)) await gateway.gateway.settled();
  }

  unexpectedErrors(): unknown[] {
    return this.lines().filter((line) => (line.level as number) >= 40);
  }

  /** Ends what a failed run left running, so that the fleet's next runs do not wait for it. */
  async close(): Promise<void> {
    for (const [id, run] of this.running) {
      this.fleet.held(this.idOf(id)).finish({ prompt: 0, cached: 0, completion: 0, status: 200 });
      await (await run.response).text();
    }
    this.running.clear();
    this.operator.close();
  }

  private idOf(id: string): string {
    return `${this.accountId}.${id}`;
  }

  private lines(): Record<string, unknown>[] {
    return this.fleet.gateways.flatMap((gateway, i) => gateway.logs.slice(this.logStart[i]));
  }

  private leases(slot: number): LeaseService | null {
    return (this.fleet.gateways[slot]?.gateway.leases as LeaseService | null) ?? null;
  }

  private async changeSeen(): Promise<void> {
    for (let slot = 0; slot < this.replicas; slot++) {
      const book = this.leases(slot)?.book;
      if (book) await waitUntil(() => book.stats().leases === 0, "the change reaching every gateway");
    }
  }
}

/** A chat completion asking for at most `cap` tokens, named by `user`, its prompt padded by `pad` bytes. */
function bodyOf(id: string, model: string, cap: number, pad: number): string {
  return JSON.stringify({
    model,
    max_tokens: cap,
    user: id,
    messages: [{ role: "user", content: "x".repeat(Math.max(0, pad)) }],
  });
}
