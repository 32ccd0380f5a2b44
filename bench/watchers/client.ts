/**
 * A client process of `npm run bench:watchers`: `node --import tsx --conditions=durable-agent-source
 * bench/watchers/client.ts <temporal address>` (BENCH_REDIS_URL set for the Redis transport). It
 * talks JSON lines: on stdin the parent's commands, on stdout its answers.
 * - `{ cmd: "watch", transport, runs: [{ workflowId, watchers }], answerChunks }` starts the
 *   watchers; it answers `{ attached: true }` once every watcher has read its run's first durable
 *   event, and `{ done: ... }` once every watcher has read `run.finished`.
 * - `{ cmd: "mark" }` (sent as the answers begin) starts the count of CPU time and calls.
 * - `{ cmd: "stop" }` (the round's deadline passed) answers `{ done: ... }` at once, with the
 *   watchers not finished marked so; the parent then replaces this process.
 */
import { setMaxListeners } from "node:events";
import { createInterface } from "node:readline";
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from "@temporalio/client";
import { ai, redisDeltas, type StreamedRunEvent } from "../../src/index.js";
import { useDeltas } from "../../src/deltas/index.js";
import { countingInterceptor, type CallCounts } from "./call-counter.js";
import { answerText, type Transport } from "./plan.js";
import { pollingWatcher } from "./polling-watcher.js";

/** What one watcher saw. */
export interface WatcherOutcome {
  workflowId: string;
  /** This process's clock (ms) at the first and last text delta. */
  firstDeltaAt?: number;
  lastDeltaAt?: number;
  /** Its deltas (after the last `trip.retry`) add up to the model's answer. */
  textOk: boolean;
  /** When they do not: how many characters they had, and the types of the durable events it read. */
  textLength?: number;
  durableTypes?: string[];
  /** It read `run.finished`. */
  finished: boolean;
  error?: string;
}

/** The answer to a round: every watcher's outcome, and this process's CPU time and Temporal calls since `mark`. */
export interface ClientRound {
  watchers: WatcherOutcome[];
  cpuMs: number;
  calls: Record<string, number>;
  rejected: number;
}

/** A parent's command. */
export type ClientCommand =
  | { cmd: "watch"; transport: Transport; runs: { workflowId: string; watchers: number }[]; answerChunks: number }
  | { cmd: "mark" }
  | { cmd: "stop" };

const [address] = process.argv.slice(2) as [string];
const counts: CallCounts = { calls: {}, rejected: 0 };
const connection = await Connection.connect({
  address,
  interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), countingInterceptor(counts)],
});
/** The client of transports (a) and (b) (DURABLE_AGENT_REDIS_URL is unset: heartbeats), and of (c), on the same counted connection. */
const client = new Client({ connection });
const redisClient = new Client({ connection });
if (process.env.BENCH_REDIS_URL) useDeltas(redisClient, redisDeltas({ url: process.env.BENCH_REDIS_URL }));
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** The events of a run for one watcher, by the transport's way of reading. */
async function eventsOf(transport: Transport, workflowId: string, signal: AbortSignal) {
  if (transport === "polling") return pollingWatcher(client, workflowId, signal);
  if (transport === "redis" && !process.env.BENCH_REDIS_URL)
    throw new Error("the Redis transport needs BENCH_REDIS_URL");
  const reader = transport === "redis" ? redisClient : client;
  return (await ai.getRun(workflowId, { client: reader })).stream({ subAgents: false });
}

/** A watcher's outcome while it reads: the text so far, and whether it has read a durable event. */
type Watching = WatcherOutcome & { text: string; attached: boolean; types: string[] };
let round: { outcomes: Watching[]; abort: AbortController; reported: boolean } | undefined;
let mark = { cpu: process.cpuUsage(), calls: {} as Record<string, number>, rejected: 0 };

function report(): void {
  if (!round || round.reported) return;
  round.reported = true;
  const cpu = process.cpuUsage(mark.cpu);
  const calls: Record<string, number> = {};
  for (const [method, n] of Object.entries(counts.calls))
    if (n > (mark.calls[method] ?? 0)) calls[method] = n - (mark.calls[method] ?? 0);
  const done: ClientRound = {
    watchers: round.outcomes.map(({ text, attached: _attached, types, ...outcome }) =>
      outcome.textOk ? outcome : { ...outcome, textLength: text.length, durableTypes: types },
    ),
    cpuMs: (cpu.user + cpu.system) / 1000,
    calls,
    rejected: counts.rejected - mark.rejected,
  };
  print({ done });
}

function watch(command: Extract<ClientCommand, { cmd: "watch" }>): void {
  const expected = answerText(command.answerChunks);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // every polling watcher's pause listens to it
  const outcomes = command.runs.flatMap(({ workflowId, watchers }): Watching[] =>
    Array.from({ length: watchers }, () => ({
      workflowId,
      textOk: false,
      finished: false,
      text: "",
      attached: false,
      types: [],
    })),
  );
  round = { outcomes, abort, reported: false };
  let attached = 0;
  let ended = 0;
  for (const outcome of outcomes)
    void (async () => {
      try {
        const events: AsyncIterable<StreamedRunEvent> = await eventsOf(
          command.transport,
          outcome.workflowId,
          abort.signal,
        );
        for await (const event of events) {
          if (event.type === "text.delta") {
            const now = Date.now();
            outcome.firstDeltaAt ??= now;
            outcome.lastDeltaAt = now;
            outcome.text += event.text;
            continue;
          }
          outcome.types.push(event.type);
          if (event.type === "trip.retry") outcome.text = ""; // the failed attempt's text is dropped: the new one's starts again
          if (!outcome.attached) {
            outcome.attached = true;
            if (++attached === outcomes.length) print({ attached: true });
          }
          if (event.type === "run.finished") outcome.finished = true;
        }
      } catch (error) {
        outcome.error = (error as Error).message;
        if (!outcome.attached && ++attached === outcomes.length) print({ attached: true });
      }
      outcome.textOk = outcome.text === expected;
      if (++ended === outcomes.length) report();
    })();
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const command = JSON.parse(line) as ClientCommand;
  if (command.cmd === "watch") watch(command);
  else if (command.cmd === "mark")
    mark = { cpu: process.cpuUsage(), calls: { ...counts.calls }, rejected: counts.rejected };
  else if (command.cmd === "stop") {
    round?.abort.abort();
    report();
  }
});
print({ ready: true });
