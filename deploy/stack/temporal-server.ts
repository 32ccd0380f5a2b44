/**
 * temporal-server on the host: one process with every service (as the compose file's `temporal`
 * service runs it), or frontend, history, matching and worker each in a process of its own
 * (`--service`), as larger deployments do; the fault tests use that to stop one service.
 */
import { join } from "node:path";
import { Connection } from "@temporalio/client";
import { ManagedProcess, waitForPort } from "./processes.js";
import type { StackPorts } from "./environment.js";

export type TemporalService = "frontend" | "history" | "matching" | "worker";
export const TEMPORAL_SERVICES: TemporalService[] = ["history", "matching", "frontend", "worker"];

export interface TemporalServerOptions {
  binDir: string;
  env: Record<string, string>;
  ports: StackPorts;
  logDir: string;
  /** One process per service (default: one process with all four). */
  split: boolean;
}

export class TemporalServer {
  /** The processes, by service; with `split` off, one process under "all". */
  readonly processes = new Map<TemporalService | "all", ManagedProcess>();

  constructor(private readonly options: TemporalServerOptions) {
    const groups: (TemporalService | "all")[] = options.split ? TEMPORAL_SERVICES : ["all"];
    for (const group of groups) {
      const services = group === "all" ? TEMPORAL_SERVICES : [group];
      this.processes.set(
        group,
        new ManagedProcess({
          name: group === "all" ? "temporal-server" : `temporal-server (${group})`,
          command: join(options.binDir, "temporal-server"),
          args: ["start", ...services.flatMap((s) => ["--service", s])],
          env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
          logFile: join(options.logDir, `temporal-${group}.log`),
          direct: true,
        }),
      );
    }
  }

  get address(): string {
    return `127.0.0.1:${this.options.ports.frontend}`;
  }

  /**
   * Starts every process and resolves when the frontend answers its health check. Split, history
   * starts first: on a new database the first process writes the cluster's metadata, and
   * processes starting at once race to write it (the losers exit).
   */
  async start(): Promise<void> {
    const [first, ...rest] = [...this.processes.entries()];
    if (!first![1].running) {
      first![1].start();
      if (first![0] !== "all") await waitForPort(this.options.ports[first![0]]);
    }
    for (const [, process] of rest) if (!process.running) process.start();
    await this.waitUntilServing();
  }

  /** The process running a service. */
  process(service: TemporalService): ManagedProcess {
    return this.processes.get(this.options.split ? service : "all")!;
  }

  /** Starts a service's process again (split only) and waits for its gRPC port. */
  async startService(service: TemporalService): Promise<void> {
    this.process(service).start();
    await waitForPort(this.options.ports[service]);
  }

  /** Stops every process (SIGTERM: the server's graceful shutdown). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await Promise.all([...this.processes.values()].map((p) => p.stop(signal)));
  }

  /** Polls the frontend's gRPC health check until it reports SERVING. */
  async waitUntilServing(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      for (const process of this.processes.values()) {
        if (!process.running) throw new Error(`${process.name} exited while starting; see ${process.options.logFile}`);
      }
      try {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 2_000 });
        try {
          const { status } = await connection.healthService.check({});
          if (status === 1) return; // SERVING
          last = `health status ${status}`;
        } finally {
          await connection.close();
        }
      } catch (error) {
        last = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`temporal-server at ${this.address} was not serving after ${timeoutMs / 1000} s: ${String(last)}`);
  }
}
