/** What a benchmark's worker child answers on stdin, a line at a time: "cpu" with "cpu <user+system ms so far>", and any `more` line with its answer. */
import { createInterface } from "node:readline";

export function answerProbes(more: Record<string, () => string> = {}): void {
  createInterface({ input: process.stdin }).on("line", (line) => {
    const asked = line.trim();
    if (asked === "cpu") {
      const { user, system } = process.cpuUsage();
      console.log(`cpu ${(user + system) / 1000}`);
    } else if (more[asked]) console.log(more[asked]());
  });
}
