/** Child processes of the stack: started with a log file (or line handler), stopped by signal. */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, createWriteStream, openSync } from "node:fs";
import { connect, createServer } from "node:net";
import { portsFrom } from "./environment.js";
import { createInterface } from "node:readline";

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Appends stdout and stderr here. */
  logFile?: string;
  /** Called with each line of stdout and stderr (after it is logged). */
  onLine?: (line: string) => void;
  /**
   * Output straight to `logFile`, not through this process (no `onLine`, no `waitForLine`), so the
   * child never waits on this process's event loop to drain a pipe. For servers that log a lot.
   */
  direct?: boolean;
}

/** One child process; `start()` again after it exited starts a new one with the same settings. */
export class ManagedProcess {
  child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(line: string) => void>();

  constructor(readonly options: ManagedProcessOptions) {}

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    const { command, args, env, cwd, logFile, onLine, direct } = this.options;
    if (direct && logFile) {
      const fd = openSync(logFile, "a");
      const child = spawn(command, args, { env, cwd, stdio: ["ignore", fd, fd] });
      closeSync(fd);
      this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
      this.child = child;
      return;
    }
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    const log = logFile ? createWriteStream(logFile, { flags: "a" }) : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      if (log) stream.pipe(log, { end: false });
      createInterface({ input: stream }).on("line", (line) => {
        onLine?.(line);
        for (const listener of this.listeners) listener(line);
      });
    }
    this.exited = new Promise((resolve) =>
      child.once("exit", () => {
        log?.end();
        resolve();
      }),
    );
    this.child = child;
  }

  /** Resolves when a line matching `pattern` is printed (by this start of the process); rejects if it exits first. */
  waitForLine(pattern: RegExp): Promise<string> {
    const child = this.child;
    return new Promise((resolve, reject) => {
      const listener = (line: string) => {
        if (!pattern.test(line)) return;
        this.listeners.delete(listener);
        resolve(line);
      };
      this.listeners.add(listener);
      child?.once("exit", (code, signal) => {
        this.listeners.delete(listener);
        reject(new Error(`${this.name} exited (${signal ?? code}) before printing ${pattern}`));
      });
    });
  }

  /** Sends a signal and waits for the process to exit (SIGKILL after `graceMs`). */
  async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 20_000): Promise<void> {
    if (!this.running) return this.exited;
    this.child!.kill(signal);
    const timer = setTimeout(() => this.child?.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port (retrying for `timeoutMs`). */
export async function waitForPort(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs a command to completion, its output appended to the log; rejects with the output's tail on failure. */
export function runToCompletion(options: ManagedProcessOptions): Promise<void> {
  const lines: string[] = [];
  const process = new ManagedProcess({ ...options, onLine: (line) => lines.push(line) });
  process.start();
  return new Promise((resolve, reject) => {
    process.child!.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${options.name} failed (exit ${code}):\n${lines.slice(-30).join("\n")}`)),
    );
    process.child!.once("error", reject);
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1. */
export { freePort as findFreePort } from "../../src/testing/port-check.js";

/** A frontend port whose whole layout (`portsFrom`) is free, for a stack beside others (tests). */
export async function findFreeFrontendPort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    // Under 32,768: the server stores membership ports in a smallint column.
    const frontend = 10_000 + Math.floor(Math.random() * 22_000);
    const all = Object.values(portsFrom(frontend));
    if ((await Promise.all(all.map(canListen))).every(Boolean)) return frontend;
  }
  throw new Error("no free range of ports for a stack");
}
