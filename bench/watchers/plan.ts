/**
 * What `npm run bench:watchers` runs: N runs answering at once at a steady pace, W watchers each,
 * spread over the client processes, for each transport and each W, interleaved round by round.
 * Pure data, shared by the parent and its child processes.
 */

/** How a watcher reads a run: (a) the old per-watcher describe loop, (b) today's default, (c) Redis deltas. */
export type Transport = "polling" | "long-poll" | "redis";

/** The transports' names in the tables. */
export const TRANSPORT_LABEL: Record<Transport, string> = {
  polling: "(a) heartbeat polling as before",
  "long-poll": "(b) history long-poll + heartbeats",
  redis: "(c) Redis deltas",
};

/** One benchmark's size. */
export interface WatchersPlan {
  /** The transports measured. */
  transports: Transport[];
  /** Runs streaming at once. */
  runs: number;
  /** Watchers per run, each a cell of the table. */
  watchersPerRun: number[];
  /** Client processes the watchers are spread over. */
  clientProcesses: number;
  /** Rounds: each (transport, W) cell runs once per round. */
  rounds: number;
  /**
   * Cells measured in the first round only: 1,000 watchers each polling for itself saturate this
   * machine (attaching alone took 3 minutes), so one round of them is all a shared machine affords.
   */
  firstRoundOnly: { transport: Transport; watchersPerRun: number }[];
  /** Chunks of the answer, of CHUNK_SIZE characters, sent at CHUNKS_PER_SECOND. */
  answerChunks: number;
  /** How long a round may take after the answers began before its watchers are stopped and counted unfinished. */
  roundDeadlineMs: number;
}

/** Characters per chunk, and the scripted model's pace: 100 characters (about 25 tokens) a second. */
export const CHUNK_SIZE = 4;
export const CHUNKS_PER_SECOND = 25;

/** The full benchmark: 10 runs × up to 100 watchers = 1,000 watchers; 5 s answers; 5 rounds (the fewest on which a goal can be decided). */
export const FULL_PLAN: WatchersPlan = {
  transports: ["polling", "long-poll", "redis"],
  runs: 10,
  watchersPerRun: [1, 10, 100],
  clientProcesses: 2,
  rounds: 5,
  firstRoundOnly: [{ transport: "polling", watchersPerRun: 100 }],
  answerChunks: 125,
  roundDeadlineMs: 60_000,
};

/** `--quick` (CI, under 90 s): the two shipped transports, 4 runs × 1 and 10 watchers, 1.2 s answers, 2 rounds. */
export const QUICK_PLAN: WatchersPlan = {
  transports: ["long-poll", "redis"],
  runs: 4,
  watchersPerRun: [1, 10],
  clientProcesses: 2,
  rounds: 2,
  firstRoundOnly: [],
  answerChunks: 30,
  roundDeadlineMs: 30_000,
};

/** The agent's name (the worker's and the clients'). */
export const AGENT = "bench-watchers";

/** Every run's answer: `chunks` chunks of CHUNK_SIZE characters, each different. */
export const answerText = (chunks: number) =>
  Array.from({ length: chunks }, (_v, i) => `w${String(i % 1000).padStart(3, "0")}`).join("");

/**
 * Which client process watches run `run`'s watcher `watcher`: each run's watchers spread over
 * every process (as a load balancer would put a chat's tabs), runs with one watcher alternating.
 */
export const processOf = (run: number, watcher: number, processes: number) => (run + watcher) % processes;

/** The watchers each process runs: per process, the run indices with how many watchers of each. */
export function placeWatchers(runs: number, watchersPerRun: number, processes: number): Map<number, number>[] {
  const placed = Array.from({ length: processes }, () => new Map<number, number>());
  for (let run = 0; run < runs; run++)
    for (let watcher = 0; watcher < watchersPerRun; watcher++) {
      const process = placed[processOf(run, watcher, processes)]!;
      process.set(run, (process.get(run) ?? 0) + 1);
    }
  return placed;
}
