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
