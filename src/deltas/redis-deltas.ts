/**
 * Answer deltas through Redis. Per run, the worker appends each chunk of the answer in flight
 * (`{ trip, attempt, from, text }`, and `reasoning` from `reasoningFrom` while the model reasons, encoded with its data converter) to a list that holds the
 * current attempt from its start, and publishes it on the run's channel, in one transaction:
 *
 * - `<prefix>:answer:<workflowId>`: a list of the chunks of the answer in flight (a new attempt
 *   replaces it; deleted when the answer ends; expires `ttlSeconds` after its last chunk; capped);
 * - `<prefix>:deltas:<workflowId>`: the channel the same chunks are published on.
 *
 * A watching process holds one subscriber connection (and one for reading lists) for all its runs:
 * it subscribes to a run's channel, then reads its list, so a watcher that comes late gets the
 * answer from its start. While Redis is down, watchers read the heartbeats, which the worker keeps
 * sending; after a reconnect the worker sends the whole answer again (a restarted Redis lost it).
 *
 * On the client side it also shares each run's durable events across the processes that watch it
 * (`runSharing`, redis-run-share.ts): one of them, holding the run's lease, reads Temporal.
 */
import type { LoadedDataConverter } from "@temporalio/common";
import type { PartialAnswer } from "../core/run-events.js";
import type { AnswerOf, AnswerPublisher, AnswerWatch, DeltaTransport, PublishContext } from "./delta-transport.js";
import { AnswerAccumulator } from "./answer-accumulator.js";
import { decodeChunk, encodeChunk } from "./chunk-codec.js";
import { loadRedis } from "./load-redis.js";
import { RedisLink } from "./redis-link.js";
import { RedisRunShare, type ShareContext } from "./redis-run-share.js";
import type { ShareRun } from "./run-share.js";

/** Options of `redisDeltas()`. */
export interface RedisDeltasOptions {
  /** The Redis server: default `DURABLE_AGENT_REDIS_URL`, else `redis://localhost:6379`. */
  url?: string;
  /** What the keys and channels start with; default `durable-agent`. */
  keyPrefix?: string;
  /** How long an answer's chunks stay after its last one when no worker ends it (a worker that died); default 600. */
  ttlSeconds?: number;
  /** Where a watching process says that Redis went down (`warn`: it falls back to heartbeats) and came back (`info`); default `console`. */
  logger?: DeltaLogger;
}

/** Where a Redis transport's messages go. */
export interface DeltaLogger {
  /** Redis went down: watchers read the heartbeats meanwhile (once per outage). */
  warn(message: string): void;
  /** Redis is back after an outage: watchers read from it again. */
  info?(message: string): void;
}

/** Chunks a list keeps: a longer answer's first ones are dropped (its watchers that come late wait for `model.answered`). */
const MAX_CHUNKS = 10_000;

/**
 * A delta transport through Redis (node-redis, the optional `redis` package): the worker publishes
 * each answer's deltas once, and every watcher in every process reads them from Redis, with no
 * read of Temporal while the model answers. Give the same transport (or the same URL) to the
 * worker (`ai.worker({ deltas })`) and the clients (`ai.connect({ deltas })`).
 */
export function redisDeltas(options: RedisDeltasOptions = {}): DeltaTransport {
  return new RedisDeltas(options);
}

/** Something a watching process keeps per run, told when Redis goes down and when it is back. */
interface RunWatching {
  /** Reads what was missed; settles once the watch reads from Redis again (or went down meanwhile). */
  resync(): void | Promise<void>;
  down(): void;
}

/** How a transport shares a run's durable events across processes: Redis only (none for other transports). */
export function runSharing(transport: DeltaTransport): ShareRun | undefined {
  if (!(transport instanceof RedisDeltas)) return undefined;
  return (workflowId, converter, onChange) => transport.shareRun(workflowId, converter, onChange);
}

class RedisDeltas implements DeltaTransport, ShareContext {
  readonly kind = "redis";
  readonly url: string;
  readonly #prefix: string;
  readonly ttlMs: number;
  readonly #logger: DeltaLogger;
  /** A watching process warned of an outage that has not ended. */
  #outage = false;
  #publisher: Promise<RedisLink> | undefined;
  #watching: Promise<{ subscriber: RedisLink; reader: RedisLink }> | undefined;
  readonly #watches = new Set<RunWatching>();
  /** The worker warned of the current outage. */
  #publishWarned = false;

  constructor(options: RedisDeltasOptions) {
    this.url = options.url ?? process.env.DURABLE_AGENT_REDIS_URL ?? "redis://localhost:6379";
    this.#prefix = options.keyPrefix ?? "durable-agent";
    this.ttlMs = (options.ttlSeconds ?? 600) * 1000;
    this.#logger = options.logger ?? console;
  }

  async load(): Promise<void> {
    await loadRedis();
  }

  /** The list of a run's answer in flight. */
  answerKey(workflowId: string): string {
    return `${this.#prefix}:answer:${workflowId}`;
  }

  /** The channel of a run's chunks. */
  channel(workflowId: string): string {
    return `${this.#prefix}:deltas:${workflowId}`;
  }

  /** A run's reader lease. */
  leaseKey(workflowId: string): string {
    return `${this.#prefix}:reader:${workflowId}`;
  }

  /** A run's log of durable events (a Redis Stream). */
  logKey(workflowId: string): string {
    return `${this.#prefix}:events:${workflowId}`;
  }

  /** The channel of a run's durable events and lease news. */
  durableChannel(workflowId: string): string {
    return `${this.#prefix}:durable:${workflowId}`;
  }

  publishAnswer(answer: AnswerOf, worker: PublishContext): AnswerPublisher {
    return new RedisAnswerPublisher(this, answer, worker);
  }

  /** The worker's connection (commands fail at once while it is down: the heartbeats carry the answer meanwhile). */
  publisher(): Promise<RedisLink> {
    this.#publisher ??= RedisLink.open(this.url, false, {
      onUp: () => (this.#publishWarned = false),
      onDown: () => undefined, // a publish that finds it down says so, with the worker's logger
    });
    return this.#publisher;
  }

  /** Warns once per outage on the worker that deltas go through heartbeats alone. */
  publishFailed(worker: PublishContext, reason: string): void {
    if (this.#publishWarned) return;
    this.#publishWarned = true;
    worker.warn(
      `Cannot publish answer deltas to Redis at ${this.url} (${reason}): watchers read them from the model call's heartbeats until Redis is back.`,
    );
  }

  watchAnswers(workflowId: string, converter: LoadedDataConverter, onChange: () => void): AnswerWatch {
    const watch = new RedisRunWatch(this, workflowId, converter, onChange);
    this.#watches.add(watch);
    void this.watching().then(
      (links) => watch.start(links.subscriber, links.reader),
      () => watch.down(), // never up: the reader keeps to the heartbeats (`load()` names a missing package)
    );
    return watch;
  }

  /** A run's durable events shared with the other processes that watch it (one of them reads Temporal). */
  shareRun(workflowId: string, converter: LoadedDataConverter, onChange: () => void): RedisRunShare {
    const share = new RedisRunShare(this, workflowId, converter, onChange);
    this.#watches.add(share);
    void this.watching().then(
      (links) => share.start(links.subscriber, links.reader),
      () => share.down(),
    );
    return share;
  }

  /** Forgets a watch or share that closed. */
  unwatch(watch: RunWatching): void {
    this.#watches.delete(watch);
  }

  /** A watching process's two connections: one subscriber for every run, one to read lists. */
  watching(): Promise<{ subscriber: RedisLink; reader: RedisLink }> {
    this.#watching ??= (async () => {
      const reader = await RedisLink.open(this.url, true, { onUp: () => undefined, onDown: () => undefined });
      const subscriber = await RedisLink.open(this.url, true, {
        onUp: () => {
          const outage = this.#outage;
          this.#outage = false;
          const resyncs = [...this.#watches].map((watch) => watch.resync());
          if (outage)
            // said once every watch reads from Redis again, so that it is true when said
            void Promise.all(resyncs).then(() =>
              this.#logger.info?.(`durable-agent: Redis at ${this.url} is back: answer deltas come through it again.`),
            );
        },
        onDown: (reason) => {
          this.#outage = true;
          this.#logger.warn(
            `durable-agent: Redis at ${this.url} is unreachable (${reason}): answer deltas fall back to ` +
              "the model call's heartbeats (read with describe()) until it is back.",
          );
          for (const watch of this.#watches) watch.down();
        },
      });
      return { subscriber, reader };
    })();
    return this.#watching;
  }

  async close(): Promise<void> {
    const links = await Promise.allSettled([this.#publisher, this.#watching]);
    for (const link of links) {
      if (link.status !== "fulfilled" || !link.value) continue;
      if (link.value instanceof RedisLink) link.value.close();
      else for (const each of [link.value.subscriber, link.value.reader]) each.close();
    }
  }
}

/** One answer attempt, published as it grows: one chunk in flight at a time, carrying all the text (and reasoning) added meanwhile. */
class RedisAnswerPublisher implements AnswerPublisher {
  #text = "";
  #reasoning = "";
  /** Characters of text and of reasoning Redis holds, on connection `#generation`. */
  #published = 0;
  #reasoningPublished = 0;
  #generation = -1;
  #sending = false;
  #closed = false;
  /** Resolves once, after close(), when the rest was published (or could not be). */
  #ended = false;
  #settleEnd!: () => void;
  readonly #end = new Promise<void>((resolve) => (this.#settleEnd = resolve));

  constructor(
    private readonly redis: RedisDeltas,
    private readonly answer: AnswerOf,
    private readonly worker: PublishContext,
  ) {}

  add(text: string): void {
    this.#text += text;
    void this.#flush();
  }

  addReasoning(text: string): void {
    this.#reasoning += text;
    void this.#flush();
  }

  close(): Promise<void> {
    this.#closed = true;
    void this.#flush();
    return this.#end;
  }

  #endIfClosed(): void {
    if (!this.#closed || this.#ended) return;
    this.#ended = true;
    this.#settleEnd();
  }

  async #flush(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    const { workflowId, trip, attempt } = this.answer;
    const key = this.redis.answerKey(workflowId);
    try {
      const link = await this.redis.publisher();
      await link.settled;
      for (;;) {
        if (!link.up) return (this.redis.publishFailed(this.worker, "not connected"), this.#endIfClosed());
        const generation = link.generation;
        // On a new connection the list may be gone (Redis restarted): the whole answer again.
        const again = generation !== this.#generation;
        const from = again ? 0 : this.#published;
        const reasoningFrom = again ? 0 : this.#reasoningPublished;
        const text = this.#text.slice(from);
        const reasoning = this.#reasoning.slice(reasoningFrom);
        if (text === "" && reasoning === "") break;
        const thought = reasoning === "" ? {} : { reasoning, reasoningFrom };
        const chunk = await encodeChunk(this.worker.converter, { trip, attempt, from, text, ...thought });
        const transaction = link.connection.multi();
        if (from === 0 && reasoningFrom === 0) transaction.del(key);
        await transaction
          .rPush(key, chunk)
          .lTrim(key, -MAX_CHUNKS, -1)
          .pExpire(key, this.redis.ttlMs)
          .publish(this.redis.channel(workflowId), chunk)
          .exec();
        this.#published = from + text.length;
        this.#reasoningPublished = reasoningFrom + reasoning.length;
        this.#generation = generation;
      }
      if (this.#closed && (this.#published > 0 || this.#reasoningPublished > 0)) {
        this.#published = this.#reasoningPublished = 0; // (once)
        await link.connection.multi().del(key).exec();
      }
      this.#endIfClosed();
    } catch (error) {
      this.redis.publishFailed(this.worker, error instanceof Error ? error.message : String(error));
      this.#endIfClosed();
    } finally {
      this.#sending = false;
      // Closed while this flush was past its last look at the text: publish the rest now.
      if (this.#closed && !this.#ended) void this.#flush();
    }
  }
}

/** A run's answer in flight, from its channel and list. */
class RedisRunWatch implements AnswerWatch {
  readonly #answer = new AnswerAccumulator();
  #links: { subscriber: RedisLink; reader: RedisLink } | undefined;
  /** The list was read since the subscriber was last (re)connected. */
  #synced = false;
  #starting = true;
  #closed = false;
  /** Chunks are decoded one at a time, in the order they came. */
  #decoding: Promise<void> = Promise.resolve();
  readonly #listener = (message: string) => this.#receive([message]);

  constructor(
    private readonly redis: RedisDeltas,
    private readonly workflowId: string,
    private readonly converter: LoadedDataConverter,
    private readonly onChange: () => void,
  ) {}

  get up(): boolean {
    return this.#synced && this.#links?.subscriber.up === true && !this.#closed;
  }

  get starting(): boolean {
    return this.#starting && !this.#closed;
  }

  get latest(): PartialAnswer | undefined {
    return this.#answer.latest;
  }

  /** Subscribes (at once, or on the subscriber's next connection), then reads the list. */
  async start(subscriber: RedisLink, reader: RedisLink): Promise<void> {
    if (this.#closed) return;
    this.#links = { subscriber, reader };
    await subscriber.settled;
    if (this.#closed) return;
    if (!subscriber.up) this.down(); // heartbeats until it is back (then `resync`)
    await subscriber.subscribe(this.redis.channel(this.workflowId), this.#listener);
    if (subscriber.up) void this.resync();
  }

  /** Reads the list (after a subscribe or a reconnect): the answer from its start, and what was missed while down. */
  async resync(): Promise<void> {
    const links = this.#links;
    if (!links || this.#closed) return;
    let stored: string[];
    try {
      stored = await links.reader.connection.lRange(this.redis.answerKey(this.workflowId), 0, -1);
    } catch {
      return this.down(); // the reader's connection failed: not synced, read the heartbeats
    }
    this.#receive(stored);
    await this.#decoding;
    this.#synced = links.subscriber.up;
    this.#starting = false;
    this.onChange();
  }

  /** Redis went down: read the heartbeats until it is back and the list was read again. */
  down(): void {
    this.#synced = false;
    this.#starting = false;
    this.onChange();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.redis.unwatch(this);
    this.#links?.subscriber.unsubscribe(this.redis.channel(this.workflowId), this.#listener);
  }

  #receive(stored: string[]): void {
    this.#decoding = this.#decoding.then(async () => {
      let grew = false;
      for (const data of stored) {
        const chunk = await decodeChunk(this.converter, data);
        if (chunk && this.#answer.add(chunk)) grew = true;
      }
      if (grew && this.#synced) this.onChange();
    });
  }
}
