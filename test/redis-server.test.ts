/** `startRedisServer`: the machine's redis-server, or Debian's package fetched without root into the cache; kill, pause and restart. */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { RedisServerNotFoundError } from "../src/errors.js";
import { startRedisServer, type RedisServer } from "../src/testing/redis-server.js";

const run = promisify(execFile);

/** One RESP command over a raw socket: the first reply line, or the socket's error code. */
function command(port: number, line: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    socket.once("connect", () => socket.write(`${line}\r\n`));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().split("\r\n")[0]!);
    });
  });
}

/** The state letter (/proc/<pid>/stat) of the redis-server on `port` (Redis titles its process `<path>/redis-server 127.0.0.1:<port>`). */
function processState(port: number): string | undefined {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmdline.includes("redis-server") && cmdline.includes(`:${port}`))
      return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0];
  }
  return undefined;
}

/**
 * The server's state once a signal sent to it took effect: the kernel stops a process when it is
 * next scheduled, not when `kill()` returns, so a loaded machine shows "S" or "R" for a moment.
 * No event says when: read /proc until it says "T", for up to 5 s.
 */
async function stateOnceSettled(port: number): Promise<string | undefined> {
  let state = processState(port);
  for (const deadline = Date.now() + 5_000; state !== "T" && Date.now() < deadline; state = processState(port))
    await new Promise((resolve) => setTimeout(resolve, 5));
  return state;
}

/** A PATH holding every program of /usr/bin but those named `except`. */
function pathWithout(except: RegExp): string {
  const dir = mkdtempSync(join(tmpdir(), "path-"));
  for (const name of readdirSync("/usr/bin"))
    if (!except.test(name)) symlinkSync(join("/usr/bin", name), join(dir, name));
  return dir;
}

/** Starts a server in a child process with `env`, sets a key, and prints what it found. */
async function startInChild(env: NodeJS.ProcessEnv) {
  const script = `
    import { startRedisServer } from ${JSON.stringify(join(process.cwd(), "src/testing/redis-server.ts"))};
    try {
      const server = await startRedisServer({ log: (line) => console.error(line) });
      console.log(JSON.stringify({ source: server.binary.source, path: server.binary.path, port: server.port }));
      await server.stop();
    } catch (error) {
      console.log(JSON.stringify({ error: error.name, message: error.message }));
    }`;
  const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...env, NODE_PATH: join(process.cwd(), "node_modules") },
    cwd: process.cwd(),
  });
  return { result: JSON.parse(stdout.trim().split("\n").at(-1)!), stderr };
}

describe("startRedisServer", () => {
  let server: RedisServer | undefined;
  afterAll(() => server?.stop());

  it("starts the machine's redis-server on a free port; kill drops it, restart brings it back empty", async () => {
    server = await startRedisServer({ log: () => {} });
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(await command(server.port, "SET k v")).toBe("+OK");
    expect(await command(server.port, "GET k")).toBe("$1");
    await server.kill();
    expect(await command(server.port, "PING")).toBe("ECONNREFUSED");
    await server.restart();
    expect(await command(server.port, "GET k")).toBe("$-1"); // in memory only: a restart starts empty
  });

  it("pause stops the process (no answer) until resume, which answers the command sent meanwhile", async () => {
    server ??= await startRedisServer({ log: () => {} });
    server.pause();
    expect(await stateOnceSettled(server.port)).toBe("T"); // stopped by SIGSTOP
    const answer = command(server.port, "PING");
    server.resume();
    expect(await answer).toBe("+PONG");
    expect(processState(server.port)).not.toBe("T");
  });

  it("with no redis-server on the machine, fetches Debian's package into the cache without root, then reuses it", async () => {
    const cache = mkdtempSync(join(tmpdir(), "redis-cache-"));
    const env = { ...process.env, PATH: pathWithout(/^redis-/), DURABLE_AGENT_CACHE_DIR: cache, REDIS_SERVER_PATH: "" };
    const fetched = await startInChild(env);
    expect(fetched.result).toMatchObject({
      source: "apt-get download",
      path: join(cache, "redis-server/bin/redis-server"),
    });
    expect(fetched.stderr).toContain("redis-server: none on this machine; fetching Debian's redis-tools");
    const again = await startInChild(env);
    expect(again.result).toMatchObject({ source: "cache" });
    expect(again.stderr).not.toContain("fetching");
  });

  it("when nothing can be had, a RedisServerNotFoundError names each way tried and the fix", async () => {
    const env = {
      ...process.env,
      PATH: pathWithout(/^(redis-.*|apt-get)$/),
      DURABLE_AGENT_CACHE_DIR: mkdtempSync(join(tmpdir(), "redis-cache-")),
      REDIS_SERVER_PATH: "",
    };
    const { result } = await startInChild(env);
    expect(result.error).toBe(RedisServerNotFoundError.name);
    expect(result.message).toContain("PATH: no `redis-server`");
    expect(result.message).toContain("apt-get download redis-tools liblzf1 libjemalloc2");
    expect(result.message).toContain("apt-get install redis-server");
  });
});
