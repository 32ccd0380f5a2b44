/**
 * A real `redis-server` (Debian's, /usr/bin/redis-server) for tests: on a free loopback port, with
 * its own temporary directory and no persistence, started by the test that needs it (as the suite
 * starts the Temporal dev server). Faults are real: kill (SIGKILL), pause (SIGSTOP) and resume
 * (SIGCONT), restart on the same port (an empty Redis, as after a crash without persistence).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConnection } from "node:net";
import { freePort } from "../../src/testing/port-check.js";

/** Where the server binary is: `REDIS_SERVER_PATH`, else Debian's. */
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

/** A running redis-server and its faults. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGKILLs the server (no shutdown): its clients see the connection drop. */
  kill(): Promise<void>;
  /** SIGSTOPs the server: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONTs a paused server. */
  resume(): void;
  /** Kills the server if it runs, then starts a new one on the same port (with no data). */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a redis-server on a free loopback port (or `port`), ready for connections. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER))
    throw new Error(
      `${REDIS_SERVER} is missing: the Redis tests need a real redis-server. Install it (\`apt-get install redis-server\`) or set REDIS_SERVER_PATH.`,
    );
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "durable-agent-redis-"));
  let child: ChildProcess | undefined = await launch(chosen, dir);
  const exited = (process: ChildProcess) =>
    new Promise<void>((resolve) =>
      process.exitCode !== null || process.signalCode !== null ? resolve() : process.once("exit", () => resolve()),
    );
  const kill = async () => {
    if (!child) return;
    const dying = child;
    child = undefined;
    dying.kill("SIGKILL");
    await exited(dying);
  };
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    kill,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    restart: async () => {
      await kill();
      child = await launch(chosen, dir);
    },
    stop: async () => {
      child?.kill("SIGCONT");
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts redis-server and waits until it accepts connections (it prints "Ready to accept connections"). */
async function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"];
  const child = spawn(REDIS_SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data.toString();
      if (output.includes("Ready to accept connections")) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  await accepts(port);
  return child;
}

/** Resolves once a TCP connection to the port opens. */
function accepts(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: "127.0.0.1" }, () => {
      socket.end();
      resolve();
    });
    socket.once("error", reject);
  });
}
