/** A benchmark's child process that answers on its stdout a line at a time (a worker, a peer's app server). */
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** The line protocol over `child`'s stdout; `what` names the child in errors ("the X worker"). */
export function lineChild(child: ChildProcess, what: string) {
  const lines = createInterface({ input: child.stdout! });
  /** The next line starting with `prefix`; rejects if the child exits first. */
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${what} exited (${code})`));
      const onLine = (line: string) => {
        if (!line.startsWith(prefix)) return;
        lines.off("line", onLine);
        child.off("exit", onExit);
        resolve(line);
      };
      lines.on("line", onLine);
      child.once("exit", onExit);
    });
  /** Rejects when the child exits (race a run against it); never resolves. */
  const exited = new Promise<never>((_resolve, reject) =>
    child.once("exit", (code) => reject(new Error(`${what} exited (${code})`))),
  );
  exited.catch(() => undefined);
  return {
    next,
    exited,
    /** The child's CPU time so far: it answers "cpu" with "cpu <ms>". */
    async cpuMs(): Promise<number> {
      const answer = next("cpu ");
      child.stdin!.write("cpu\n");
      return Number((await answer).slice(4));
    },
  };
}
