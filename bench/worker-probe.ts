/** A benchmark's worker child: what it answers on stdin, and how it runs until SIGTERM. */
import { createInterface } from "node:readline";

/** Answers on stdout, a line at a time: "cpu" with "cpu <user+system ms so far>", and any `more` line with its answer. */
export function answerProbes(more: Record<string, () => string> = {}): void {
  createInterface({ input: process.stdin }).on("line", (line) => {
    const asked = line.trim();
    if (asked === "cpu") {
      const { user, system } = process.cpuUsage();
      console.log(`cpu ${(user + system) / 1000}`);
    } else if (more[asked]) console.log(more[asked]());
  });
}

/**
 * Counts this process's `MaxListenersExceededWarning`s from now on (Node still prints them): a
 * listener added per call to a long-lived `AbortSignal` and never removed is a leak, and this is
 * how a benchmark run finds one. Returns the count so far.
 */
export function countListenerWarnings(): () => number {
  let count = 0;
  process.on("warning", (warning) => {
    if (warning.name === "MaxListenersExceededWarning") count++;
  });
  return () => count;
}

/** Runs the worker until SIGTERM, printing "ready" once it polls; then closes the connection and exits. */
export async function serveUntilSigterm(
  worker: { run(): Promise<void>; shutdown(): void },
  connection: { close(): Promise<void> },
): Promise<never> {
  process.once("SIGTERM", () => worker.shutdown());
  const running = worker.run();
  console.log("ready");
  await running;
  await connection.close();
  process.exit(0);
}
