/**
 * A connection to Redis that knows whether it is usable now: up once it is ready and answers,
 * down when it fails (never started, killed, restarting) or stops answering (paused: a health
 * ping times out). Each outage is reported once (`onDown`), each recovery too (`onUp`), and it
 * reconnects by itself. It never keeps the process alive.
 */
import { createRedisConnection, type RedisConnection } from "./load-redis.js";

/** How long after a health check the next one starts. */
const HEALTH_CHECK_MS = 1_000;
/** How long a health check's ping may take before Redis counts as down (paused, or a machine too loaded to answer). */
const PING_TIMEOUT_MS = 3_000;

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
    connection.on("ready", () => {
      link.#generation++;
      link.#setUp();
    });
    connection.on("error", (error) => link.#setDown(error.message || error.name));
    connection.on("reconnecting", () => link.#setDown("connection lost, reconnecting"));
    connection.unref(); // before connecting: the first socket is made at once
    connection.connect().catch((error: Error) => link.#setDown(error.message));
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

  /** A ping that does not answer within PING_TIMEOUT_MS (a paused Redis) takes the link down until one does. */
  async #check(): Promise<void> {
    if (!this.connection.isReady) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), PING_TIMEOUT_MS);
      timer.unref();
    });
    const answer = await Promise.race([this.connection.ping().catch(() => "failed" as const), late]);
    clearTimeout(timer);
    if (answer === "late") this.#setDown(`no answer to a ping within ${PING_TIMEOUT_MS} ms`);
    else if (answer !== "failed" && this.connection.isReady) this.#setUp();
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
