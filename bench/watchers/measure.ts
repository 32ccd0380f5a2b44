/**
 * One round of one cell (a transport and W watchers per run): N runs start, their model calls are
 * held until every watcher has attached, then all answers begin together (t0) and the round ends
 * when every watcher has read `run.finished` (t1). From the runs' start to t1, the frontend's
 * requests (the dev server's own counters, settled between rounds: nothing else reads Temporal
 * then); between t0 and t1, the client processes' and the worker's CPU time; for each watcher,
 * its first-delta latency and last-delta lag against the model's chunks. Each run's history
 * length is read after all the rounds.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import type { temporal } from "@temporalio/proto";
import { ai } from "../../src/index.js";
import type { ScriptedRequest, ScriptedTurn } from "../../src/testing/index.js";
import { textOf } from "../scenario.js";
import { STREAM_AGENT } from "../streaming-scenario.js";
import type { ClientRound } from "./client.js";
import type { ClientProcess } from "./client-process.js";
import { answerText, placeWatchers, type Transport, type WatchersPlan } from "./plan.js";
import { requestsBetween, settledRequests, type RequestCounts } from "./server-metrics.js";

/** What one round of one cell measured. */
export interface CellRound {
  transport: Transport;
  watchersPerRun: number;
  round: number;
  /** The runs' start → t1, ms: the window of `requests`. */
  windowMs: number;
  /** t0 → t1, ms: the window of the CPU times. */
  answerWindowMs: number;
  /** Frontend requests from the runs' start to t1, by operation (worker's, clients' and the runs' starts alike). */
  requests: RequestCounts;
  /** The client processes' own count of their calls in the window, by method, and their rejected calls. */
  clientCalls: Record<string, number>;
  rejected: number;
  clientCpuMs: number;
  workerCpuMs: number;
  workflowIds: string[];
  /** Each run's history (filled in after the rounds: `historyCounts`). */
  histories: HistoryCount[];
  /** Per watcher that got text: the model's first chunk → its first delta; the model's last chunk → its last delta. */
  firstDeltaMs: number[];
  lastDeltaLagMs: number[];
  watchers: number;
  /** Watchers that did not read `run.finished` before the deadline, or whose text was not the answer. */
  unfinished: number;
  wrongText: number;
  /** Up to 3 watchers whose text was not the answer: how much text they had, and the durable events they read. */
  wrongTextSamples: { workflowId: string; textLength?: number; durableTypes?: string[] }[];
  errors: string[];
}

/** The scripted model's side: answers held until the round's gate opens, each run's request found by its tag. */
export class GatedAnswers {
  #gate: Promise<void> = Promise.resolve();
  readonly #requests = new Map<string, ScriptedRequest>();
  readonly #arrived = new Map<string, () => void>();

  constructor(private readonly chunks: number) {}

  /** The scripted model's handler: the user message is `Stream <tag>`. */
  readonly script = async (request: ScriptedRequest): Promise<ScriptedTurn> => {
    const tag = /Stream (\S+)/.exec(textOf(request.body.messages.find((m) => m.role === "user")?.content))?.[1] ?? "";
    this.#requests.set(tag, request);
    this.#arrived.get(tag)?.();
    await this.#gate;
    return answerText(this.chunks);
  };

  /** Holds the answers of requests from now until the returned function is called. */
  hold(): () => void {
    let open!: () => void;
    this.#gate = new Promise((resolve) => (open = resolve));
    return open;
  }

  /** Resolves once the model call of the run tagged `tag` reached the model. */
  arrival(tag: string): Promise<void> {
    if (this.#requests.has(tag)) return Promise.resolve();
    return new Promise((resolve) => this.#arrived.set(tag, resolve));
  }

  request(tag: string): ScriptedRequest | undefined {
    return this.#requests.get(tag);
  }
}

/** What a round needs. */
export interface RoundContext {
  plan: WatchersPlan;
  client: Client;
  metricsUrl: string;
  answers: GatedAnswers;
  /** The task queue and worker of each transport's runs. */
  worker(transport: Transport): { taskQueue: string; cpuMs(): Promise<number> };
  clients: ClientProcess[];
  /** Replaces the client processes after a round that ran out of time. */
  restartClients(): Promise<void>;
  /** The frontend's counters at the end of the last round (settled): where the next round's count starts. */
  counts: RequestCounts;
}

const agent = ai.agent({ name: STREAM_AGENT, model: ai.openai("gpt-bench") }); // the client's view: the name is enough

/** Starts `runs` runs (streamed or not) tagged for the gated model; resolves once every model call has arrived. */
export async function startRuns(context: RoundContext, transport: Transport, streamText: boolean) {
  const { taskQueue } = context.worker(transport);
  const tags = Array.from({ length: context.plan.runs }, () => randomUUID());
  const runs = await Promise.all(
    tags.map((tag) => agent.start(`Stream ${tag}`, { client: context.client, taskQueue, streamText })),
  );
  await Promise.all(tags.map((tag) => context.answers.arrival(tag)));
  return tags.map((tag, i) => ({ tag, run: runs[i]! }));
}

/** Measures one round of the cell. Its requests are counted from `context.counts` (settled), which it moves on. */
export async function measureRound(
  context: RoundContext,
  transport: Transport,
  watchersPerRun: number,
  round: number,
): Promise<CellRound> {
  const { plan, answers } = context;
  const started = Date.now();
  const open = answers.hold();
  const runs = await startRuns(context, transport, true);
  const placement = placeWatchers(plan.runs, watchersPerRun, context.clients.length);
  const rounds = await Promise.all(
    context.clients.map((client, p) =>
      client.watch({
        cmd: "watch",
        transport,
        answerChunks: plan.answerChunks,
        runs: [...placement[p]!].map(([run, watchers]) => ({ workflowId: runs[run]!.run.workflowId, watchers })),
      }),
    ),
  );
  const worker = context.worker(transport);
  const workerCpuBefore = await worker.cpuMs();
  for (const client of context.clients) client.mark();
  const t0 = Date.now();
  open();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"deadline">(
    (resolve) => (timer = setTimeout(() => resolve("deadline"), plan.roundDeadlineMs)),
  );
  const all = Promise.all(rounds.map((r) => r.done));
  const outcome = await Promise.race([all, deadline]);
  clearTimeout(timer);
  if (outcome === "deadline") for (const client of context.clients) client.stopRound();
  const results: ClientRound[] = await all;
  const t1 = Date.now();
  const workerCpuMs = (await worker.cpuMs()) - workerCpuBefore;
  if (outcome === "deadline") await context.restartClients();
  const after = await settledRequests(context.metricsUrl);
  const requests = requestsBetween(context.counts, after);
  context.counts = after;
  const chunksOf = new Map(runs.map(({ tag, run }) => [run.workflowId, answers.request(tag)]));
  const watchers = results.flatMap((r) => r.watchers);
  const clientCalls: Record<string, number> = {};
  for (const r of results)
    for (const [method, n] of Object.entries(r.calls)) clientCalls[method] = (clientCalls[method] ?? 0) + n;
  return {
    transport,
    watchersPerRun,
    round,
    windowMs: t1 - started,
    answerWindowMs: t1 - t0,
    requests,
    clientCalls,
    rejected: results.reduce((n, r) => n + r.rejected, 0),
    clientCpuMs: results.reduce((n, r) => n + r.cpuMs, 0),
    workerCpuMs,
    workflowIds: runs.map(({ run }) => run.workflowId),
    histories: [],
    firstDeltaMs: watchers.flatMap((w) => {
      const first = chunksOf.get(w.workflowId)?.firstChunkAt;
      return w.firstDeltaAt !== undefined && first !== undefined ? [w.firstDeltaAt - first] : [];
    }),
    lastDeltaLagMs: watchers.flatMap((w) => {
      const last = chunksOf.get(w.workflowId)?.lastChunkAt;
      return w.lastDeltaAt !== undefined && last !== undefined ? [w.lastDeltaAt - last] : [];
    }),
    watchers: watchers.length,
    unfinished: watchers.filter((w) => !w.finished).length,
    wrongText: watchers.filter((w) => w.finished && !w.textOk).length,
    wrongTextSamples: watchers
      .filter((w) => w.finished && !w.textOk)
      .slice(0, 3)
      .map(({ workflowId, textLength, durableTypes }) => ({ workflowId, textLength, durableTypes })),
    errors: [...new Set(watchers.flatMap((w) => (w.error ? [w.error] : [])))],
  };
}

/** A run's history: its events, and the same with each workflow task counted as 3 events (one that timed out and ran again as one). */
export interface HistoryCount {
  events: number;
  normalized: number;
  /** Workflow tasks that timed out or failed (a loaded machine's: they add events that streaming does not). */
  workflowTaskRetries: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const isWorkflowTaskEvent = (e: HistoryEvent) =>
  Boolean(
    e.workflowTaskScheduledEventAttributes ??
    e.workflowTaskStartedEventAttributes ??
    e.workflowTaskCompletedEventAttributes ??
    e.workflowTaskTimedOutEventAttributes ??
    e.workflowTaskFailedEventAttributes,
  );

/** Counts a history's events. */
export function countHistory(events: HistoryEvent[]): HistoryCount {
  const completed = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  return {
    events: events.length,
    normalized: events.filter((e) => !isWorkflowTaskEvent(e)).length + 3 * completed,
    workflowTaskRetries: events.filter(
      (e) => e.workflowTaskTimedOutEventAttributes ?? e.workflowTaskFailedEventAttributes,
    ).length,
  };
}

/** Each run's history, read after the rounds (so no round counts these reads). */
export async function historyCounts(client: Client, workflowIds: string[]): Promise<HistoryCount[]> {
  return Promise.all(
    workflowIds.map(async (id) => countHistory((await client.workflow.getHandle(id).fetchHistory()).events ?? [])),
  );
}

/** History events of an unstreamed run (no watcher), the baseline of "added events per streamed trip": per run. */
export async function unstreamedEvents(context: RoundContext): Promise<HistoryCount[]> {
  const open = context.answers.hold();
  const runs = await startRuns(context, "long-poll", false);
  open();
  await Promise.all(runs.map(({ run }) => run.result()));
  return historyCounts(
    context.client,
    runs.map(({ run }) => run.workflowId),
  );
}
