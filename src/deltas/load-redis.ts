/**
 * The `redis` package (node-redis, Redis's own client), an optional peer dependency: imported on
 * first use by a Redis delta transport, never by the root. Only the few calls the transport makes
 * are typed here, so this package's types do not depend on `redis`'s being installed.
 */
import { RedisClientMissingError } from "../errors.js";

/** The node-redis client calls the transport makes. */
export interface RedisConnection {
  /** Connected or connecting: false before `connect()`, and once a connection failed (node-redis does not retry it). */
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  on(event: "ready", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  unref(): void;
  destroy(): void;
  ping(): Promise<string>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  lRange(key: string, start: number, stop: number): Promise<string[]>;
  /** Runs a Lua script (the run lease's and the durable log's: each one atomic step). */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  xRange(key: string, start: string, end: string): Promise<Array<{ id: string; message: Record<string, string> }>>;
  multi(): RedisMulti;
}

/** A MULTI … EXEC transaction. */
export interface RedisMulti {
  del(key: string): RedisMulti;
  rPush(key: string, value: string): RedisMulti;
  lTrim(key: string, start: number, stop: number): RedisMulti;
  pExpire(key: string, ms: number): RedisMulti;
  publish(channel: string, message: string): RedisMulti;
  exec(): Promise<unknown>;
}

/** What the transport sets on a connection. */
export interface RedisConnectionOptions {
  url: string;
  /** Reject commands at once while disconnected (a publisher), rather than queue them (a subscriber). */
  disableOfflineQueue: boolean;
}

type CreateClient = (options: object) => RedisConnection;

/** A variable, so that bundlers leave the optional package to Node's resolution at run time. */
const REDIS_PACKAGE = "redis";
let loaded: Promise<CreateClient> | undefined;

/** `redis`'s `createClient`, imported once per process; a `RedisClientMissingError` when the package is not installed. */
export function loadRedis(): Promise<CreateClient> {
  loaded ??= (
    import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ REDIS_PACKAGE) as Promise<{
      createClient: CreateClient;
    }>
  ).then(
    (module) => module.createClient,
    (error: unknown) => {
      loaded = undefined;
      throw new RedisClientMissingError(error);
    },
  );
  return loaded;
}

/**
 * node-redis never retries a failed connection itself: its wait between retries is a timer that
 * would keep the process alive while Redis is down. The caller connects again (RedisLink, from its
 * unref'd health check); node-redis keeps the confirmed subscriptions, and subscribes to them again
 * on the next connection.
 */
const reconnectStrategy = () => new Error("reconnected by the caller");

/** A connection to `url` (not connected yet): once unref'd, it never keeps the process alive, even while Redis is down. */
export async function createRedisConnection(options: RedisConnectionOptions): Promise<RedisConnection> {
  const createClient = await loadRedis();
  return createClient({
    url: options.url,
    disableOfflineQueue: options.disableOfflineQueue,
    socket: { reconnectStrategy, connectTimeout: 2_000 },
  });
}
