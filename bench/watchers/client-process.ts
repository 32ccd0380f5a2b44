/** The parent's side of a client process (client.ts): spawn it, send commands, await its answers. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { ClientCommand, ClientRound } from "./client.js";

type Line = { ready?: true; attached?: true; done?: ClientRound };

/** A running client process. */
export class ClientProcess {
  readonly #child: ChildProcess;
  readonly #waiting: { key: keyof Line; resolve: (line: Line) => void; reject: (error: Error) => void }[] = [];
  #exit: Error | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    createInterface({ input: child.stdout! }).on("line", (text) => {
      const line = JSON.parse(text) as Line;
      for (const waiter of this.#waiting.filter((w) => line[w.key] !== undefined)) {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    });
    child.once("exit", (code, signal) => {
      this.#exit = new Error(`a client process exited (${code ?? signal})`);
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#exit);
    });
  }

  /** Starts a client process connected to `address`, with `env` added to its environment. */
  static async start(address: string, env: Record<string, string>): Promise<ClientProcess> {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=durable-agent-source",
        new URL("./client.ts", import.meta.url).pathname,
        address,
      ],
      { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] },
    );
    const started = new ClientProcess(child);
    await started.#next("ready");
    return started;
  }

  #next(key: keyof Line): Promise<Line> {
    if (this.#exit) return Promise.reject(this.#exit);
    return new Promise((resolve, reject) => this.#waiting.push({ key, resolve, reject }));
  }

  #send(command: ClientCommand): void {
    this.#child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Starts the watchers; resolves once each has read its run's first durable event, with a promise of the round's end. */
  async watch(command: Extract<ClientCommand, { cmd: "watch" }>): Promise<{ done: Promise<ClientRound> }> {
    const attached = this.#next("attached");
    const done = this.#next("done").then((line) => line.done!);
    done.catch(() => undefined);
    this.#send(command);
    await attached;
    return { done };
  }

  /** Starts the count of CPU time and calls. */
  mark(): void {
    this.#send({ cmd: "mark" });
  }

  /** Stops the round's watchers: its `done` resolves at once. */
  stopRound(): void {
    this.#send({ cmd: "stop" });
  }

  /** Ends the process. */
  async close(): Promise<void> {
    if (this.#exit) return;
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    this.#child.kill("SIGTERM");
    await exited;
  }
}
