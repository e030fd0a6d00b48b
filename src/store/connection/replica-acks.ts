// Where a settlement is written when it must reach a replica before it counts, and the WAIT that says it has
// (redis.settlementReplicas; docs/redis.md#settlements-and-failover).
//
// WAIT counts the writes of the connection it is sent on, and blocks that connection until the replicas
// answer: so settlements that wait for replicas go on connections of their own (never the request path's,
// whose reservations would queue behind a WAIT), and their WAIT goes on the very socket the settle script ran
// on. On one server or through Sentinel that is a second connection to the master; on a Cluster, a second
// Cluster client whose node for the account's slot runs both the script and the WAIT (ioredis routes a
// keyless WAIT to any node, and a slot that moved in between would answer for writes it never had). A socket
// that changed between the script and the WAIT (a reconnection, a failover) acknowledges nothing.
//
// WAITs are shared: while one is in flight on a socket, the settlements answered meanwhile wait for the next,
// which covers them all, so a busy replica costs one round trip per WAIT, not one per settle call.

import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./redis.js";

/** redis.settlementReplicas and redis.settlementReplicaTimeoutMs. */
export interface ReplicaAckSettings {
  /** Replicas that must have a settlement before it counts: a number, or auto (one where there are any). */
  replicas: number | "auto";
  timeoutMs: number;
}

/** Where one account's settlements run, and how many replicas must acknowledge them there. */
export interface SettlementRoute {
  client: RedisClient;
  replicas: number;
}

interface Waiter {
  socket: unknown;
  replicas: number;
  resolve: (acknowledged: boolean) => void;
}

interface SocketWaits {
  inFlight: boolean;
  queue: Waiter[];
}

/** Accounts whose hash slot is remembered at most (their slot never changes; the map is only a cache). */
const MAX_SLOTS_KEPT = 100_000;

export class ReplicaAcks {
  private own: RedisClient | null = null;
  private connecting: Promise<void> | null = null;
  /** On one server or through Sentinel, with auto: replicas the master had at the connection's last ready. */
  private autoReplicas: Promise<number> | null = null;
  private readonly slots = new Map<string, number>();
  private readonly waits = new WeakMap<Redis, SocketWaits>();
  /** WAITs sent and how many found fewer replicas than needed (for the metrics and the tests). */
  readonly counts = { waits: 0, short: 0 };

  constructor(
    private readonly main: RedisClient,
    private readonly settings: ReplicaAckSettings,
  ) {
    // A failover, a restart: the next settlement reads the replicas again.
    main.on("ready", () => {
      this.autoReplicas = null;
    });
  }

  /** Whether any settlement may wait for replicas (for the start-up message). */
  get enabled(): boolean {
    return this.settings.replicas !== 0;
  }

  /**
   * Where the settlements of the account whose keys include `accountKey` run. An error that means "retry
   * later" (isConnectionError) when the node of its slot is not known yet.
   */
  async route(accountKey: string): Promise<SettlementRoute> {
    if (this.settings.replicas === 0) return { client: this.main, replicas: 0 };
    if (!isCluster(this.main)) {
      const replicas =
        this.settings.replicas === "auto" ? Math.min(1, await this.autoCount()) : this.settings.replicas;
      return replicas === 0 ? { client: this.main, replicas } : { client: await this.connection(), replicas };
    }
    const cluster = (await this.connection()) as Cluster;
    const slot = await this.slotOf(cluster, accountKey);
    const holders = cluster.slots[slot];
    const master = holders?.[0];
    const node =
      master === undefined ? undefined : cluster.nodes("master").find((n) => nodeKey(n) === master);
    if (node === undefined) {
      cluster.refreshSlotsCache();
      throw new Error(`Cluster isn't ready: no master known for slot ${slot}`);
    }
    const replicas =
      this.settings.replicas === "auto" ? Math.min(1, (holders?.length ?? 1) - 1) : this.settings.replicas;
    return replicas === 0 ? { client: this.main, replicas } : { client: node, replicas };
  }

  /** A write on this route failed: on a Cluster, the slot may have moved (MOVED, a failover). */
  failed(): void {
    if (this.own !== null && isCluster(this.own)) this.own.refreshSlotsCache();
  }

  /**
   * The socket a write on the route goes out on if sent now: read it just before the write, and hand it to
   * acknowledged() with the route.
   */
  socketOf(route: SettlementRoute): unknown {
    return (route.client as Redis).stream;
  }

  /**
   * Resolves true once `route.replicas` replicas have every write made on `socket` so far (the write's own
   * included), false when they do not within the timeout, or when the route's connection has another socket
   * by the time the WAIT goes out (a reconnection in between: a WAIT there would vouch for nothing of it).
   */
  acknowledged(route: SettlementRoute, socket: unknown): Promise<boolean> {
    if (route.replicas === 0) return Promise.resolve(true);
    const node = route.client as Redis;
    let state = this.waits.get(node);
    if (state === undefined) {
      state = { inFlight: false, queue: [] };
      this.waits.set(node, state);
    }
    const waits = state;
    const promise = new Promise<boolean>((resolve) =>
      waits.queue.push({ socket, replicas: route.replicas, resolve }),
    );
    if (!waits.inFlight) this.sendWait(node, waits);
    return promise;
  }

  /** Closes the connections of its own. */
  close(): void {
    if (this.own !== null && this.own.status !== "end") this.own.disconnect();
  }

  private sendWait(node: Redis, waits: SocketWaits): void {
    const batch = waits.queue.splice(0);
    if (batch.length === 0) return;
    waits.inFlight = true;
    const socket = node.stream;
    const replicas = Math.max(...batch.map((waiter) => waiter.replicas));
    this.counts.waits++;
    (node.call("WAIT", replicas, this.settings.timeoutMs) as Promise<number>)
      .then(
        (count) => Number(count),
        () => 0,
      )
      .then((count) => {
        if (count < replicas) this.counts.short++;
        for (const waiter of batch) waiter.resolve(waiter.socket === socket && count >= waiter.replicas);
        waits.inFlight = false;
        this.sendWait(node, waits);
      });
  }

  /** The connection settlements that wait for replicas use (made and connected at first use). */
  private async connection(): Promise<RedisClient> {
    if (this.own === null) {
      const own = isCluster(this.main) ? this.main.duplicate() : (this.main as Redis).duplicate();
      // Its failures surface through its commands, as the main connection's do.
      own.on("error", () => {});
      this.own = own;
      this.connecting = own.connect().then(
        () => {},
        (error: unknown) => {
          this.connecting = null;
          throw error;
        },
      );
    }
    if (this.connecting !== null && this.own.status !== "ready") await this.connecting;
    return this.own;
  }

  private autoCount(): Promise<number> {
    this.autoReplicas ??= connectedReplicas(this.main as Redis).catch((error: unknown) => {
      this.autoReplicas = null;
      throw error;
    });
    return this.autoReplicas;
  }

  private async slotOf(cluster: Cluster, accountKey: string): Promise<number> {
    const known = this.slots.get(accountKey);
    if (known !== undefined) return known;
    const slot = Number(await cluster.call("CLUSTER", "KEYSLOT", accountKey));
    if (this.slots.size >= MAX_SLOTS_KEPT) this.slots.clear();
    this.slots.set(accountKey, slot);
    return slot;
  }
}

/** The replicas a master has connected now (INFO replication), 0 for anything but a master. */
async function connectedReplicas(redis: Redis): Promise<number> {
  const info = await redis.info("replication");
  if (!/^role:master\s*$/m.test(info)) return 0;
  return Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
}

/** The node's key as ioredis writes it in Cluster.slots: host:port. */
function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}
