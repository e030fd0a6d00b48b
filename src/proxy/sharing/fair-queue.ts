// The queue of admitted requests waiting for a place at the model server (upstream.maxInFlight): a pure data
// structure — no I/O, no clock, no timers — that decides who is forwarded next. Accounts share the server by
// weight with start-time fair queuing (SFQ; Goyal, Vin and Cheng, 1996); within an account, its keys with
// waiting requests take its turns in round robin.
//
// Why start-time fair queuing and not deficit round robin: DRR serves an account `weight` requests in a row
// before it moves on, so with weights 100 and 1 a request of the light account can wait behind 100 of the
// heavy one; SFQ interleaves by virtual time (a request's start tag is the larger of the virtual time and its
// account's previous finish tag; the smallest tag goes first), so every account is served within one request
// of its share at any moment, whatever the weights. Like DRR it needs no knowledge of the server's speed,
// which varies with what it is running. Its cost is a heap over the accounts that wait: O(log accounts).
//
// The unit of cost is one request, not tokens: what a request will cost the server is unknown before it runs
// (its output length is up to the model), its worst case is mostly the cap the client chose, and a place at
// the server (one of the batch's sequences) is what the requests compete for. Weighing by the worst case
// would let an account that asks for small caps jump the queue and punish one that leaves the cap at its
// default: it is not fairer for mixed sizes, only easier to game. Budgets and rate limits bound tokens.
//
// An account that stops waiting keeps its last finish tag until the virtual time passes it, so that leaving
// the queue for a moment and coming back earns no credit; accounts idle for longer are forgotten.

/** A waiting request's place in the queue: what remove() takes when it leaves before its turn. */
export interface Ticket<T> {
  readonly item: T;
  /** Still waiting: neither dequeued nor removed. */
  readonly waiting: boolean;
}

class Entry<T> implements Ticket<T> {
  waiting = true;
  prev: Entry<T> | null = null;
  next: Entry<T> | null = null;

  constructor(
    readonly item: T,
    readonly line: KeyLine<T>,
  ) {}
}

/** A key's waiting requests, oldest first, and its place in its account's round robin. */
class KeyLine<T> {
  head: Entry<T> | null = null;
  tail: Entry<T> | null = null;
  size = 0;
  /** The next and previous keys of the account's ring (itself when it is alone). */
  nextKey: KeyLine<T> = this;
  prevKey: KeyLine<T> = this;

  constructor(
    readonly keyId: string,
    readonly flow: Flow<T>,
  ) {}
}

/** An account: its weight, its tags in virtual time, and the ring of its keys with waiting requests. */
class Flow<T> {
  weight = 1;
  /** Start tag of its next request (while it waits). */
  start = 0;
  /** Finish tag of its last request served. */
  finish = 0;
  size = 0;
  /** Position in the heap of waiting accounts; -1 when it has nothing waiting. */
  heapIndex = -1;
  /** Ties between equal start tags go to the account that became ready first. */
  order = 0;
  readonly keys = new Map<string, KeyLine<T>>();
  /** The key whose request goes next; null when nothing waits. */
  current: KeyLine<T> | null = null;

  constructor(readonly accountId: string) {}
}

/** Idle accounts are forgotten once there are this many more of them than accounts waiting. */
const IDLE_SLACK = 64;

export class FairQueue<T> {
  private readonly flows = new Map<string, Flow<T>>();
  /** Accounts with waiting requests, by (start tag, order). */
  private readonly heap: Flow<T>[] = [];
  private virtualTime = 0;
  /** The largest finish tag served: the virtual time once nothing waits (the end of a busy period). */
  private lastFinish = 0;
  private ordering = 0;
  private total = 0;

  /** Requests waiting. */
  get size(): number {
    return this.total;
  }

  /** Requests of the account waiting. */
  waitingOf(accountId: string): number {
    return this.flows.get(accountId)?.size ?? 0;
  }

  /** Accounts with waiting requests, and how many each. */
  *waitingAccounts(): Iterable<[accountId: string, waiting: number]> {
    for (const flow of this.heap) yield [flow.accountId, flow.size];
  }

  /**
   * The share of the server the account gets while the accounts now waiting keep waiting: its weight over
   * theirs (its own counted once, waiting or not).
   */
  shareOf(accountId: string, weight: number): number {
    let sum = 0;
    for (const flow of this.heap) if (flow.accountId !== accountId) sum += flow.weight;
    return weight / (sum + weight);
  }

  /** Adds a request of the account's key; `weight` (> 0) becomes the account's weight from now on. */
  enqueue(accountId: string, keyId: string, weight: number, item: T): Ticket<T> {
    let flow = this.flows.get(accountId);
    if (flow === undefined) {
      flow = new Flow<T>(accountId);
      this.flows.set(accountId, flow);
    }
    flow.weight = weight;
    let line = flow.keys.get(keyId);
    if (line === undefined) {
      line = new KeyLine<T>(keyId, flow);
      flow.keys.set(keyId, line);
      joinRing(flow, line);
    }
    const entry = new Entry(item, line);
    if (line.tail === null) line.head = entry;
    else {
      line.tail.next = entry;
      entry.prev = line.tail;
    }
    line.tail = entry;
    line.size++;
    this.total++;
    if (flow.size++ === 0) {
      // Back from idle: no credit for the time it did not wait.
      flow.start = Math.max(this.virtualTime, flow.finish);
      flow.order = this.ordering++;
      this.push(flow);
    }
    return entry;
  }

  /** The request whose turn it is, or undefined when none waits. */
  dequeue(): T | undefined {
    const flow = this.heap[0];
    if (flow === undefined) return undefined;
    const line = flow.current as KeyLine<T>;
    const entry = line.head as Entry<T>;
    this.virtualTime = flow.start;
    // The account's next request, of whichever key, is its next key's: round robin.
    flow.current = line.nextKey;
    flow.finish = flow.start + 1 / flow.weight;
    if (flow.finish > this.lastFinish) this.lastFinish = flow.finish;
    this.unlink(entry);
    if (flow.size > 0) {
      flow.start = flow.finish;
      flow.order = this.ordering++;
      this.siftDown(0);
    }
    return entry.item;
  }

  /** Takes a request out before its turn (its client left, its wait ran out); false if it no longer waits. */
  remove(ticket: Ticket<T>): boolean {
    const entry = ticket as Entry<T>;
    if (!entry.waiting) return false;
    this.unlink(entry);
    return true;
  }

  /** Takes the entry out of its key's line, the key out of the ring and the account out of the heap as they empty. */
  private unlink(entry: Entry<T>): void {
    entry.waiting = false;
    const line = entry.line;
    if (entry.prev === null) line.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === null) line.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = null;
    entry.next = null;
    line.size--;
    // A busy period ends: whoever comes next starts level with everyone served so far.
    if (--this.total === 0) this.virtualTime = this.lastFinish;
    const flow = line.flow;
    if (line.size === 0) {
      leaveRing(flow, line);
      flow.keys.delete(line.keyId);
    }
    if (--flow.size === 0) {
      this.removeAt(flow.heapIndex);
      this.forgetIdle();
    }
  }

  /** Forgets accounts that have waited for nothing since the virtual time passed their last finish tag. */
  private forgetIdle(): void {
    if (this.flows.size <= this.heap.length * 2 + IDLE_SLACK) return;
    for (const [id, flow] of this.flows) {
      if (flow.size === 0 && flow.finish <= this.virtualTime) this.flows.delete(id);
    }
  }

  private push(flow: Flow<T>): void {
    flow.heapIndex = this.heap.length;
    this.heap.push(flow);
    this.siftUp(flow.heapIndex);
  }

  private removeAt(index: number): void {
    const heap = this.heap;
    const removed = heap[index] as Flow<T>;
    const last = heap.pop() as Flow<T>;
    removed.heapIndex = -1;
    if (last === removed) return;
    heap[index] = last;
    last.heapIndex = index;
    this.siftUp(index);
    this.siftDown(last.heapIndex);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const flow = heap[index] as Flow<T>;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as Flow<T>;
      if (!before(flow, parent)) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = flow;
    flow.heapIndex = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const flow = heap[index] as Flow<T>;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && before(heap[right] as Flow<T>, heap[left] as Flow<T>) ? right : left;
      const next = heap[child] as Flow<T>;
      if (!before(next, flow)) break;
      heap[index] = next;
      next.heapIndex = index;
      index = child;
    }
    heap[index] = flow;
    flow.heapIndex = index;
  }
}

function before<T>(a: Flow<T>, b: Flow<T>): boolean {
  return a.start < b.start || (a.start === b.start && a.order < b.order);
}

/** A key with a first waiting request joins its account's round robin last, just before the key whose turn it is. */
function joinRing<T>(flow: Flow<T>, line: KeyLine<T>): void {
  const current = flow.current;
  if (current === null) {
    flow.current = line;
    return;
  }
  const last = current.prevKey;
  last.nextKey = line;
  line.prevKey = last;
  line.nextKey = current;
  current.prevKey = line;
}

function leaveRing<T>(flow: Flow<T>, line: KeyLine<T>): void {
  if (line.nextKey === line) {
    flow.current = null;
    return;
  }
  line.prevKey.nextKey = line.nextKey;
  line.nextKey.prevKey = line.prevKey;
  if (flow.current === line) flow.current = line.nextKey;
  line.nextKey = line;
  line.prevKey = line;
}
