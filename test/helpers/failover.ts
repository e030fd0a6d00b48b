// What the failover tests share (test/e2e/failover-cluster.test.ts, failover-sentinel.test.ts): a replication
// user whose link can be cut on loopback, requests sent while a master is killed, and the books checked to the
// micro-ruble afterwards — every request answered 200 charged exactly once, on one gateway or several sharing
// the data (each its own replica: its own connections, settlement queue and ledger).

import { execFileSync } from "node:child_process";
import { expect } from "vitest";
import type { TestGateway } from "./gateway.js";
import { chat } from "./leases.js";
import { waitUntil } from "./wait.js";

/**
 * Every node has a user "repl" its replicas authenticate with (masteruser/masterauth), so that a test can cut a
 * replica's link: the master disables the user and closes its connections, and the replica, refused at every
 * attempt to reconnect, stays behind while the master takes writes — a slow network or a busy replica, without
 * iptables.
 */
export const REPLICATION_USER_ARGS = [
  "--user",
  "repl",
  "on",
  ">repl-password",
  "~*",
  "&*",
  "+@all",
  "--masteruser",
  "repl",
  "--masterauth",
  "repl-password",
];

/**
 * Waits until the replicas at `replicaPorts` have every write of the master at `port`, a write of `key` (one
 * the master serves) included. A replica listed online after its first sync gets the master's writes only once
 * the master has read its acknowledgement of that sync, which can take a second; WAIT does not tell.
 */
export async function waitForReplicas(
  port: number,
  replicaPorts: readonly number[],
  key = "probe",
): Promise<void> {
  const offset = (server: number, field: string) =>
    Number(new RegExp(`^${field}:(\\d+)`, "m").exec(cli(server, "INFO", "replication"))?.[1] ?? -1);
  cli(port, "SET", key, "1");
  const written = offset(port, "master_repl_offset");
  await waitUntil(
    () => replicaPorts.every((replica) => offset(replica, "slave_repl_offset") >= written),
    `the replicas of :${port} to have its writes`,
    10_000,
  );
  cli(port, "DEL", key);
}

function cli(port: number, ...args: string[]): string {
  return execFileSync("redis-cli", ["-p", String(port), ...args]).toString();
}

/** Cuts the links of the master at `port` to its replicas (see REPLICATION_USER_ARGS). */
export function cutReplication(port: number): void {
  execFileSync("redis-cli", ["-p", String(port), "ACL", "SETUSER", "repl", "off"]);
  execFileSync("redis-cli", ["-p", String(port), "CLIENT", "KILL", "USER", "repl"]);
}

export interface Answered {
  key: string;
  status: number;
  requestId: string;
}

/**
 * Sends `total` chat requests over `keys` and the gateways (each round robin), `concurrency` at a time; once
 * `at` of them have been answered, `during` runs (while the rest keep going). Resolves with every answer once
 * all are in and `during` is done.
 */
export async function requestsDuring(
  gateways: TestGateway | readonly TestGateway[],
  keys: readonly string[],
  options: { total: number; concurrency: number; at: number },
  during: () => Promise<void>,
): Promise<Answered[]> {
  const answers: Answered[] = [];
  const all: readonly TestGateway[] = Array.isArray(gateways) ? gateways : [gateways as TestGateway];
  let next = 0;
  let fired: Promise<void> | undefined;
  const worker = async () => {
    while (next < options.total) {
      const t = all[Math.floor(next / keys.length) % all.length] as TestGateway;
      const key = keys[next++ % keys.length] as string;
      let status = 0;
      let requestId = "";
      try {
        const res = await chat(t, key);
        status = res.status;
        requestId = res.headers.get("x-request-id") ?? "";
        await res.text();
      } catch {
        // A connection the gateway cut: not answered 200.
      }
      answers.push({ key, status, requestId });
      if (answers.length === options.at) fired = during();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await fired;
  return answers;
}

export interface AccountBooks {
  accountId: string;
  /** Its keys: id and value. */
  keys: { id: string; value: string }[];
  /** Its balance before the requests (µ₽). */
  before: number;
}

/**
 * Every account's books to the micro-ruble: Σ of the log lines' costs (of every gateway) = Σ of its keys'
 * spent amounts = what its balance went down by; and every request answered 200 appears once, exactly, in its
 * key's recent requests.
 */
export async function expectExactBooks(
  gateways: TestGateway | readonly TestGateway[],
  accounts: readonly AccountBooks[],
  answers: readonly Answered[],
): Promise<void> {
  const all: readonly TestGateway[] = Array.isArray(gateways) ? gateways : [gateways as TestGateway];
  const t = all[0] as TestGateway;
  const lines = all.flatMap((g) => g.logs).filter((line) => line.msg === "request");
  for (const [i, g] of all.entries()) {
    expect(
      g.logs.some((line) => line.msg === "request"),
      `gateway ${i} served requests`,
    ).toBe(true);
  }
  for (const { accountId, keys, before } of accounts) {
    const logged = lines
      .filter((line) => line.account === accountId)
      .reduce((sum, line) => sum + Math.round((line.cost_rub as number) * 1e6), 0);
    let spent = 0;
    for (const key of keys) spent += (await t.store.keys.get({ accountId, keyId: key.id }))?.spent ?? 0;
    const balance = (await t.store.accounts.require(accountId)).balance;
    expect({ accountId, logged, spent, charged: before - balance }).toEqual({
      accountId,
      logged,
      spent: logged,
      charged: logged,
    });
    for (const key of keys) {
      const kept = (await t.store.stores.requestLog.all(accountId, key.id)).map((entry) => entry.request_id);
      const answered = answers.filter((a) => a.key === key.value && a.status === 200).map((a) => a.requestId);
      for (const requestId of answered) {
        expect(
          kept.filter((id) => id === requestId),
          `request ${requestId} of ${accountId}`,
        ).toHaveLength(1);
      }
    }
  }
}
