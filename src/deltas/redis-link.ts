/**
 * A connection to Redis that knows whether it is usable now: up once it is ready and answers,
 * down when it fails (never started, killed, restarting) or stops answering (paused: a health
 * ping times out). Each outage is reported once (`onDown`), each recovery too (`onUp`), and it
 * reconnects by itself. It never keeps the process alive, even while Redis is down: node-redis
 * does not retry a failed connection (its wait between retries is a timer that would hold the
 * process); the link's unref'd health check connects again. The link keeps its channels'
 * listeners itself and subscribes to them on each new connection before it is up (node-redis
 * drops a subscription asked for while a connection fails).
 */
import { createRedisConnection, type RedisConnection } from "./load-redis.js";

/** How long after a health check the next one starts. */
const HEALTH_CHECK_MS = 1_000;
/** How long a health check's ping may take before Redis counts as down (paused, or a machine too loaded to answer). */
const PING_TIMEOUT_MS = 3_000;

/** Receives a channel's messages. */
export type ChannelListener = (message: string) => void;

/** What a link reports. */
export interface LinkEvents {
  /** Redis is usable (again). */
  onUp(): void;
  /** Redis stopped being usable: `reason` says why. Called once per outage. */
  onDown(reason: string): void;
}

/** One connection to Redis, with its state. */
export class RedisLink {
  #up = false;
  /** Whether the current outage was reported (the first failure to connect is one). */
  #downReported = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #generation = 0;
  /** The generation whose connection subscribed to the link's channels: it is not up before. */
  #subscribed = 0;
  /** The listeners of each channel the link is subscribed to. */
  readonly #channels = new Map<string, Set<ChannelListener>>();
  /** Channels left while not connected: unsubscribed on the next connection (node-redis may subscribe to them again). */
  readonly #left = new Set<string>();
  /** The one node-redis listener of every channel: calls the channel's listeners. */
  readonly #dispatch = (message: string, channel: string) => {
    for (const listener of this.#channels.get(channel) ?? []) listener(message);
  };
  /** Resolves once the first connection attempt succeeded or failed. */
  readonly #settled: Promise<void>;
  #settle!: () => void;

  private constructor(
    readonly connection: RedisConnection,
    private readonly events: LinkEvents,
  ) {
    this.#settled = new Promise<void>((resolve) => (this.#settle = resolve));
  }

  /** Resolves once the first connection attempt succeeded or failed: before it, `up` says nothing yet. */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** Opens a link to `url` (it connects in the background: not ready yet). */
  static async open(url: string, offlineQueue: boolean, events: LinkEvents): Promise<RedisLink> {
    const connection = await createRedisConnection({ url, disableOfflineQueue: !offlineQueue });
    const link = new RedisLink(connection, events);
    connection.on("ready", () => void link.#connected());
    connection.on("error", (error) => link.#setDown(error.message || error.name));
    connection.unref(); // before connecting: the first socket is made at once
    link.#connect();
    link.#scheduleCheck();
    return link;
  }

  /** Redis is usable now. */
  get up(): boolean {
    return this.#up;
  }

  /** Counts the times the connection became ready: a new one may face a restarted Redis, its keys gone. */
  get generation(): number {
    return this.#generation;
  }

  /** Subscribes `listener` to `channel`: at once when connected, else on the next connection (before the link is up). */
  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    if (this.#closed) return;
    this.#channels.set(channel, (this.#channels.get(channel) ?? new Set()).add(listener));
    this.#left.delete(channel);
    // A connection lost meanwhile drops it: the next one subscribes (`#connected`).
    if (this.connection.isReady) await this.connection.subscribe(channel, this.#dispatch).catch(() => undefined);
  }

  /** Unsubscribes `listener` from `channel` (Redis too, once no listener of it is left). */
  unsubscribe(channel: string, listener: ChannelListener): void {
    const listeners = this.#channels.get(channel);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.#channels.delete(channel);
    if (!this.connection.isReady) this.#left.add(channel);
    else this.connection.unsubscribe(channel, this.#dispatch).catch(() => this.#left.add(channel));
  }

  /** Closes the connection for good. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#up = false;
    this.connection.destroy();
  }

  #scheduleCheck(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#check().finally(() => this.#scheduleCheck()), HEALTH_CHECK_MS);
    this.#timer.unref();
  }

  /** Connects (again): a failure takes the link down, and the next health check tries again. */
  #connect(): void {
    this.connection.connect().catch((error: Error) => this.#setDown(error.message || error.name));
  }

  /** A new connection is ready: it subscribes to the link's channels (and leaves those left meanwhile), then the link is up. */
  async #connected(): Promise<void> {
    const generation = ++this.#generation;
    const left = [...this.#left].filter((channel) => !this.#channels.has(channel));
    this.#left.clear();
    try {
      await Promise.all([
        ...[...this.#channels.keys()].map((channel) => this.connection.subscribe(channel, this.#dispatch)),
        ...left.map((channel) => this.connection.unsubscribe(channel, this.#dispatch)),
      ]);
    } catch {
      for (const channel of left) this.#left.add(channel);
      return; // lost meanwhile (its error took the link down): the next connection subscribes
    }
    if (generation !== this.#generation || !this.connection.isReady) return;
    this.#subscribed = generation;
    this.#setUp();
  }

  /**
   * Connects again when the connection failed; once connected, a ping that does not answer within
   * PING_TIMEOUT_MS (a paused Redis) takes the link down until one does.
   */
  async #check(): Promise<void> {
    if (this.#closed) return;
    if (!this.connection.isOpen) return this.#connect();
    if (!this.connection.isReady) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), PING_TIMEOUT_MS);
      timer.unref();
    });
    const answer = await Promise.race([this.connection.ping().catch(() => "failed" as const), late]);
    clearTimeout(timer);
    if (answer === "late") this.#setDown(`no answer to a ping within ${PING_TIMEOUT_MS} ms`);
    else if (answer !== "failed" && this.connection.isReady && this.#subscribed === this.#generation) this.#setUp();
  }

  #setUp(): void {
    this.#settle();
    if (this.#closed || this.#up) return;
    this.#up = true;
    this.#downReported = false;
    this.events.onUp();
  }

  #setDown(reason: string): void {
    this.#settle();
    if (this.#closed) return;
    this.#up = false;
    if (this.#downReported) return;
    this.#downReported = true;
    this.events.onDown(reason);
  }
}
