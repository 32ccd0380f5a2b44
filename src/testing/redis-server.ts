/**
 * A real `redis-server` on loopback, for tests, benchmarks and local stacks: the one on the machine
 * (`REDIS_SERVER_PATH`, the PATH), else Debian's own package, which this
 * package fetches without root (`apt-get download` and `dpkg -x` into its cache), as it fetches the
 * Temporal CLI for the dev server.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { RedisServerNotFoundError, RedisServerStartError } from "../errors.js";
import { freePort } from "./port-check.js";
import { cacheDir } from "./temporal-cli.js";

/** Debian's packages that hold `redis-server` (in redis-tools, as `redis-check-rdb`) and the libraries Debian's base lacks. */
const DEBIAN_PACKAGES = ["redis-tools", "liblzf1", "libjemalloc2"];
/** How long a started server has to answer PING. */
const READY_WITHIN_MS = 10_000;

/** A `redis-server` to run, and where it came from. */
export interface RedisServerBinary {
  readonly path: string;
  readonly source: "REDIS_SERVER_PATH" | "PATH" | "cache" | "apt-get download";
  /** Extra environment (the fetched package's libraries). */
  readonly env: Record<string, string>;
}

/** A running `redis-server`; its data lives in memory only (no RDB, no AOF). */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly binary: RedisServerBinary;
  /** Kills it (SIGKILL): clients see the connection drop, as in a crash. */
  kill(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers. */
  pause(): void;
  /** Wakes a paused server (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port, empty (after `kill`, or stopping it first). */
  restart(): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

const isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const cachedDir = () => join(cacheDir(), "redis-server");
const cachedBinary = (dir: string): RedisServerBinary => ({
  path: join(dir, "bin", "redis-server"),
  source: "cache",
  env: {
    LD_LIBRARY_PATH: [join(dir, "usr/lib/x86_64-linux-gnu"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
  },
});

/** The machine's `redis-server`, or the one fetched earlier into this package's cache; undefined if none. */
export function findRedisServer(): RedisServerBinary | undefined {
  const fromEnv = process.env.REDIS_SERVER_PATH;
  if (fromEnv && isExecutable(fromEnv)) return { path: fromEnv, source: "REDIS_SERVER_PATH", env: {} };
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const path = join(dir, "redis-server");
    if (dir && isExecutable(path)) return { path, source: "PATH", env: {} };
  }
  const cached = cachedBinary(cachedDir());
  return isExecutable(cached.path) ? cached : undefined;
}

/** Fetches Debian's redis-server into this package's cache, without root: `apt-get download`, then `dpkg -x`. */
async function fetchDebianRedis(log: (line: string) => void): Promise<RedisServerBinary> {
  const run = promisify(execFile);
  mkdirSync(cacheDir(), { recursive: true });
  const work = mkdtempSync(join(cacheDir(), "redis-download-"));
  try {
    log(`redis-server: none on this machine; fetching Debian's ${DEBIAN_PACKAGES.join(", ")} into ${cachedDir()}`);
    await run("apt-get", ["download", ...DEBIAN_PACKAGES], { cwd: work });
    const root = join(work, "root");
    for (const deb of DEBIAN_PACKAGES) {
      const { stdout } = await run("sh", ["-c", `ls ${deb}_*.deb`], { cwd: work });
      await run("dpkg", ["-x", join(work, stdout.trim()), root]);
    }
    // Redis runs as a server when its program name is redis-server (Debian's is a link to redis-check-rdb).
    mkdirSync(join(root, "bin"));
    symlinkSync(join("..", "usr/bin/redis-check-rdb"), join(root, "bin", "redis-server"));
    rmSync(cachedDir(), { recursive: true, force: true });
    renameSync(root, cachedDir());
    return { ...cachedBinary(cachedDir()), source: "apt-get download" };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** PING over a raw socket: true when the server answers PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

/**
 * Starts a `redis-server` on a free loopback port (or `port`), in memory only. The binary comes
 * from `REDIS_SERVER_PATH`, the PATH, this package's cache, or Debian's package fetched into it;
 * when none can be had, a `RedisServerNotFoundError` says what was tried.
 */
export async function startRedisServer(
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<RedisServer> {
  const log = options.log ?? console.log;
  let binary = findRedisServer();
  if (!binary) {
    try {
      binary = await fetchDebianRedis(log);
    } catch (error) {
      throw new RedisServerNotFoundError([
        "REDIS_SERVER_PATH: not set",
        "PATH: no `redis-server`",
        `apt-get download ${DEBIAN_PACKAGES.join(" ")}: ${(error as Error).message.split("\n")[0]}`,
      ]);
    }
  }
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "durable-agent-redis-"));
  const found = binary;
  let child: ChildProcess | undefined;
  let output = "";

  const start = async () => {
    output = "";
    const started = spawn(
      found.path,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { env: { ...process.env, ...found.env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    child = started;
    started.stdout!.on("data", (data: Buffer) => (output = (output + data.toString()).slice(-4_000)));
    started.stderr!.on("data", (data: Buffer) => (output = (output + data.toString()).slice(-4_000)));
    const exited = new Promise<void>((resolve) => started.once("exit", () => resolve()));
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (started.exitCode !== null || started.signalCode !== null)
        throw new RedisServerStartError(`exited (${started.exitCode ?? started.signalCode})`, output);
      if (await ping(port)) return;
      if (Date.now() > deadline) {
        started.kill("SIGKILL");
        await exited;
        throw new RedisServerStartError(`did not answer on port ${port} within ${READY_WITHIN_MS / 1000} s`, output);
      }
      await sleep(50);
    }
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGCONT");
    running.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    binary: found,
    kill,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    restart: async () => {
      await kill();
      await start();
    },
    stop: async () => {
      await kill();
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
