/**
 * A run's durable events shared through Redis, so that one process reads Temporal for every
 * process that watches the run. Per run:
 *
 * - `<prefix>:reader:<workflowId>`: the lease, `<reader id> <run chain>`, set with a TTL
 *   (LEASE_MS) by the process that reads Temporal and renewed while it reads; it expires when
 *   that process dies, and another takes it;
 * - `<prefix>:events:<workflowId>`: a Redis Stream of the durable events the holder read, the
 *   entry id `<offset>-1`, each entry `{ chain, data }` (the event through the data converter);
 *   capped, and expiring `ttlSeconds` after its last entry;
 * - `<prefix>:durable:<workflowId>`: the channel each entry is published on (with its offset and
 *   chain), and where lease changes are announced.
 *
 * A Stream, not a list: its ids are the offsets, so Redis itself refuses an offset at or below
 * its last one (two holders in a takeover's overlap cannot store an event twice or out of order),
 * and a gap is read by offset (XRANGE). Followers learn of new entries from the channel on the
 * process's one subscriber connection rather than with XREAD BLOCK, which would hold a connection
 * per blocked read. The run chain (its first run id) tells a reused workflow id's runs apart.
 */
import { randomUUID } from "node:crypto";
import type { LoadedDataConverter } from "@temporalio/common";
import type { RunEvent } from "../core/run-events.js";
import { decodeValue, encodeValue } from "./chunk-codec.js";
import type { RedisLink } from "./redis-link.js";
import type { OffsetEvent, RunLease, RunShare } from "./run-share.js";

/** How long a lease lives without renewal: a holder that died is replaced within it. */
const LEASE_MS = 5_000;
/** Events the log keeps (as the workflow's own stream does); a follower further behind reads Temporal. */
const MAX_EVENTS = 1_000;

/**
 * Takes the lease if it is free, or renews (and names the chain in) the one this reader holds;
 * announces a change. Returns [1 if held here, the lease's value].
 */
const LEASE_SCRIPT = `
local held = redis.call('GET', KEYS[1])
local mine = ARGV[1]
if held == false or held == mine or string.sub(held, 1, #mine + 1) == mine .. ' ' then
  local value = mine
  if ARGV[3] ~= '' then value = mine .. ' ' .. ARGV[3] end
  redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
  if held ~= value then redis.call('PUBLISH', ARGV[4], '{"lease":true}') end
  return {1, value}
end
return {0, held}`;

/** Deletes the lease if this reader holds it, and announces it. */
const RELEASE_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held and (held == ARGV[1] or string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '{"lease":true}')
end
return 0`;

/**
 * Appends events past the log's last offset (another chain's log is replaced), publishing each;
 * with the run's end among them, deletes the lease (if this reader holds it) in the same step, so
 * that no lease naming an ended chain outlives it. KEYS: log, lease; ARGV: channel, ttl ms, cap,
 * chain, reader id, "1" if the run ended, then (offset, data, message) for each event.
 */
const PUBLISH_SCRIPT = `
local top = -1
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if last then
  if last[2][2] ~= ARGV[4] then redis.call('DEL', KEYS[1]) else top = tonumber(string.match(last[1], '^%d+')) end
end
for i = 7, #ARGV, 3 do
  local offset = tonumber(ARGV[i])
  if offset > top then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], ARGV[i] .. '-1', 'chain', ARGV[4], 'data', ARGV[i + 1])
    redis.call('PUBLISH', ARGV[1], ARGV[i + 2])
    top = offset
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local held = redis.call('GET', KEYS[2])
if ARGV[6] == '1' and held and (held == ARGV[5] or string.sub(held, 1, #ARGV[5] + 1) == ARGV[5] .. ' ') then
  redis.call('DEL', KEYS[2])
  redis.call('PUBLISH', ARGV[1], '{"lease":true}')
end
return top`;

/** What a run's share needs from the transport. */
export interface ShareContext {
  readonly ttlMs: number;
  leaseKey(workflowId: string): string;
  logKey(workflowId: string): string;
  durableChannel(workflowId: string): string;
  /** Forgets a share that closed. */
  unwatch(share: RedisRunShare): void;
}

/** An event as the channel carries it. */
interface EventMessage {
  o: number;
  c: string;
  d: string;
}

/** A promise that a down Redis rejects (and nobody waits on otherwise). */
function downSignal(): { promise: Promise<never>; reject: (error: Error) => void } {
  let reject!: (error: Error) => void;
  const promise = new Promise<never>((_resolve, fail) => (reject = fail));
  promise.catch(() => undefined);
  return { promise, reject };
}

/** A channel message as an event, or undefined (news of the lease, or not ours). */
function parseMessage(message: string): EventMessage | undefined {
  try {
    const parsed = JSON.parse(message) as Partial<EventMessage>;
    return typeof parsed.o === "number" && typeof parsed.c === "string" && typeof parsed.d === "string"
      ? (parsed as EventMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

/** One process's share of a run's durable events (as the holder of the lease, or a follower). */
export class RedisRunShare implements RunShare {
  readonly #id = randomUUID();
  #links: { subscriber: RedisLink; reader: RedisLink } | undefined;
  #synced = false;
  #starting = true;
  #closed = false;
  /** Rejects the calls in flight when Redis goes down. */
  #down = downSignal();
  /** Received events of chain `#chain`, by offset, not read yet. */
  readonly #received = new Map<number, OffsetEvent>();
  #chain: string | undefined;
  /** Read the log before trusting what the channel brings (after subscribing, or reconnecting). */
  #stale = true;
  #decoding: Promise<void> = Promise.resolve();
  /** The lease changed hands (or was released) since the last `lead()`. */
  #leaseNews = false;
  readonly #listener = (message: string) => this.#receive(message);

  constructor(
    private readonly context: ShareContext,
    private readonly workflowId: string,
    private readonly converter: LoadedDataConverter,
    private readonly onChange: () => void,
  ) {}

  get up(): boolean {
    return this.#synced && this.#links?.subscriber.up === true && this.#links.reader.up && !this.#closed;
  }

  get starting(): boolean {
    return this.#starting && !this.#closed;
  }

  /** Subscribes to the run's channel (at once, or on the subscriber's next connection), once both connections tried to connect. */
  async start(subscriber: RedisLink, reader: RedisLink): Promise<void> {
    if (this.#closed) return;
    this.#links = { subscriber, reader };
    await Promise.all([subscriber.settled, reader.settled]);
    if (this.#closed) return;
    if (!subscriber.up || !reader.up) this.down();
    await subscriber.subscribe(this.context.durableChannel(this.workflowId), this.#listener);
    if (subscriber.up) this.resync();
  }

  /** Subscribed (again): read the log before the channel's events (what came while down is only there). */
  resync(): void {
    if (!this.#links || this.#closed) return;
    this.#stale = true;
    this.#synced = true;
    this.#starting = false;
    this.onChange();
  }

  /** Redis went down: calls in flight reject, and the reader reads Temporal alone until it is back. */
  down(): void {
    this.#synced = false;
    this.#starting = false;
    this.#down.reject(new Error("Redis went down"));
    this.#down = downSignal();
    this.onChange();
  }

  get leaseNews(): boolean {
    return this.#leaseNews;
  }

  async lead(chain: string | undefined): Promise<RunLease> {
    this.#leaseNews = false;
    const channel = this.context.durableChannel(this.workflowId);
    const [held, value] = (await this.#call((link) =>
      link.connection.eval(LEASE_SCRIPT, {
        keys: [this.context.leaseKey(this.workflowId)],
        arguments: [this.#id, String(LEASE_MS), chain ?? "", channel],
      }),
    )) as [number, string];
    const space = value.indexOf(" ");
    return { leading: held === 1, chain: space < 0 ? undefined : value.slice(space + 1) };
  }

  async publish(chain: string, events: OffsetEvent[]): Promise<void> {
    const triples: string[] = [];
    for (const { offset, ...event } of events) {
      const data = await encodeValue(this.converter, event);
      triples.push(String(offset), data, JSON.stringify({ o: offset, c: chain, d: data } satisfies EventMessage));
    }
    if (triples.length === 0) return;
    const ended = events.some((event) => event.type === "run.finished");
    await this.#call((link) =>
      link.connection.eval(PUBLISH_SCRIPT, {
        keys: [this.context.logKey(this.workflowId), this.context.leaseKey(this.workflowId)],
        arguments: [
          this.context.durableChannel(this.workflowId),
          String(this.context.ttlMs),
          String(MAX_EVENTS),
          chain,
          this.#id,
          ended ? "1" : "0",
          ...triples,
        ],
      }),
    );
  }

  async read(chain: string, fromOffset: number): Promise<OffsetEvent[]> {
    await this.#decoding;
    if (chain !== this.#chain) {
      this.#chain = chain;
      this.#received.clear();
      this.#stale = true;
    }
    for (const offset of this.#received.keys()) if (offset < fromOffset) this.#received.delete(offset);
    if (!this.#received.has(fromOffset) && (this.#stale || this.#received.size > 0)) {
      this.#stale = false;
      const entries = await this.#call((link) =>
        link.connection.xRange(this.context.logKey(this.workflowId), String(fromOffset), "+"),
      );
      for (const { id, message } of entries) {
        const offset = Number.parseInt(id, 10);
        if (message.chain !== chain || this.#received.has(offset)) continue;
        const event = await this.#decode(message.data ?? "", offset);
        if (event) this.#received.set(offset, event);
      }
    }
    const offsets = [...this.#received.keys()].sort((a, b) => a - b);
    const events: OffsetEvent[] = [];
    for (const offset of offsets) {
      if (events.length > 0 && offset !== events.at(-1)!.offset + 1) break; // a hole: the log fills it at the next read
      events.push(this.#received.get(offset)!);
      this.#received.delete(offset);
    }
    return events;
  }

  async release(): Promise<void> {
    await this.#call((link) =>
      link.connection.eval(RELEASE_SCRIPT, {
        keys: [this.context.leaseKey(this.workflowId)],
        arguments: [this.#id, this.context.durableChannel(this.workflowId)],
      }),
    );
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.context.unwatch(this);
    this.#links?.subscriber.unsubscribe(this.context.durableChannel(this.workflowId), this.#listener);
  }

  /** A command on the reading connection, rejected at once while Redis is down and when it goes down meanwhile. */
  async #call<T>(command: (link: RedisLink) => Promise<T>): Promise<T> {
    const link = this.#links?.reader;
    if (!link || !this.up) throw new Error("Redis is down");
    return Promise.race([command(link), this.#down.promise]);
  }

  #receive(message: string): void {
    this.#decoding = this.#decoding.then(async () => {
      const parsed = parseMessage(message);
      if (!parsed) this.#leaseNews = true;
      else if (parsed.c === this.#chain) {
        const event = await this.#decode(parsed.d, parsed.o);
        if (event) this.#received.set(parsed.o, event);
      }
      this.onChange(); // an event, or news of the lease
    });
  }

  async #decode(data: string, offset: number): Promise<OffsetEvent | undefined> {
    const event = (await decodeValue(this.converter, data)) as RunEvent | undefined;
    return typeof event === "object" && event !== null && typeof event.type === "string"
      ? { ...event, offset }
      : undefined;
  }
}
