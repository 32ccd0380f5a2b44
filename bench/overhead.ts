/**
 * The cost of durability on the compared conversation (TRIPS model calls, one tool call on each
 * but the last): per-trip overhead of a durable run over the in-process floor, and the history a
 * run writes, for us and for the peer. Runs alternate floor/durable so drift hits both alike.
 */
import type { WorkflowHandle } from "@temporalio/client";
import { historySize, historyTimeline, percentile, round, withBenchWorker, type Bench } from "./lib.js";
import { runInProcess } from "./in-process.js";
import { benchAgent, FINAL_ANSWER, inputFor, TRIPS } from "./scenario.js";

export interface OverheadFigures {
  runs: number;
  trips: number;
  toolCalls: number;
  floorRunMs: { p50: number; p95: number };
  durableRunMs: { p50: number; p95: number };
  /** (durable run − in-process run) / trips, over the paired runs. */
  perTripOverheadMs: { p50: number; p95: number };
  history: { events: number; bytes: number; eventsPerTrip: number; bytesPerTrip: number; eventsPerToolCall: number; bytesPerToolCall: number };
  /** Where a durable run's time went per trip, from its history's timestamps (mean over the measured runs). */
  timelinePerTripMs: { run: number; workflowTasks: number; workflowTaskWait: number; activities: Record<string, number> };
}

/** Discarded rounds before measuring (bundle caches, connection pools, JIT). */
const warmup = (bench: Bench) => (bench.quick ? 0 : 3);

/** One side of the comparison: its in-process floor and its durable run of the conversation. */
interface Contender {
  floor(): Promise<void>;
  durable(): Promise<WorkflowHandle>;
}

type Timing = Pick<OverheadFigures, "floorRunMs" | "durableRunMs" | "perTripOverheadMs" | "timelinePerTripMs"> & { last: WorkflowHandle };

/**
 * Runs each contender's floor then its durable run, contender after contender, `runs` times after
 * a warm-up, so load from elsewhere on the machine hits every figure alike.
 */
async function measure(runs: number, warmupRuns: number, contenders: Contender[]): Promise<Timing[]> {
  for (let i = 0; i < warmupRuns; i++) {
    for (const c of contenders) {
      await c.floor();
      await c.durable();
    }
  }
  const samples = contenders.map(() => ({ floorMs: [] as number[], durableMs: [] as number[], overhead: [] as number[], handles: [] as WorkflowHandle[] }));
  for (let i = 0; i < runs; i++) {
    for (const [k, c] of contenders.entries()) {
      const s = samples[k]!;
      let t = performance.now();
      await c.floor();
      const floorMs = performance.now() - t;
      t = performance.now();
      s.handles.push(await c.durable());
      const durableMs = performance.now() - t;
      s.floorMs.push(floorMs);
      s.durableMs.push(durableMs);
      s.overhead.push((durableMs - floorMs) / TRIPS);
    }
  }
  const p = (values: number[]) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) });
  return Promise.all(
    samples.map(async (s) => ({
      floorRunMs: p(s.floorMs),
      durableRunMs: p(s.durableMs),
      perTripOverheadMs: p(s.overhead),
      timelinePerTripMs: await meanTimeline(s.handles),
      last: s.handles.at(-1)!,
    })),
  );
}

async function meanTimeline(handles: WorkflowHandle[]): Promise<OverheadFigures["timelinePerTripMs"]> {
  const timelines = await Promise.all(handles.map((handle) => historyTimeline(handle)));
  const per = (total: number) => round(total / timelines.length / TRIPS);
  const activities: Record<string, number> = {};
  for (const name of new Set(timelines.flatMap((t) => Object.keys(t.activitiesMs)))) activities[name] = per(timelines.reduce((sum, t) => sum + (t.activitiesMs[name] ?? 0), 0));
  return {
    run: per(timelines.reduce((sum, t) => sum + t.totalMs, 0)),
    workflowTasks: per(timelines.reduce((sum, t) => sum + t.workflowTasksMs, 0)),
    workflowTaskWait: per(timelines.reduce((sum, t) => sum + t.workflowTaskWaitMs, 0)),
    activities,
  };
}

function historyFigures(size: { events: number; bytes: number }, toolCalls: number): OverheadFigures["history"] {
  return {
    ...size,
    eventsPerTrip: round(size.events / TRIPS),
    bytesPerTrip: round(size.bytes / TRIPS, 0),
    eventsPerToolCall: round(size.events / toolCalls),
    bytesPerToolCall: round(size.bytes / toolCalls, 0),
  };
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench: ${what}`);
}

export interface Compared {
  ours: OverheadFigures;
  /** The peer's figures, or why it did not run. */
  peer: OverheadFigures | { error: string };
}

/**
 * Ours (a durable run against the in-process driver of the same agent) and the peer (its durable
 * `generateText` against its own in-process `generateText`), measured in the same rounds.
 */
export async function benchOverhead(bench: Bench, baseURL: string): Promise<Compared> {
  const runs = bench.quick ? 3 : 30;
  const input = inputFor(TRIPS);
  const toolCalls = TRIPS - 1;
  const agent = benchAgent(baseURL);
  const ours: Contender = {
    async floor() {
      const result = await runInProcess(agent, input);
      check(result.trips === TRIPS && result.reply === FINAL_ANSWER, `in-process run made ${result.trips} trips`);
    },
    async durable() {
      const handle = await agent.start(input, { client: bench.client, taskQueue });
      const result = await handle.result();
      check(result.trips === TRIPS && result.reply === FINAL_ANSWER, `durable run made ${result.trips} trips`);
      return handle.workflow;
    },
  };
  let taskQueue = "";
  // The peer is a comparison, not a dependency: if it cannot be loaded or run, say why and go on.
  let peer: (Contender & { close(): Promise<void> }) | { error: string };
  try {
    const { startPeer } = await import("./peer.js");
    const started = await startPeer(bench, baseURL);
    peer = {
      async floor() {
        const result = await started.runInProcess(input, TRIPS);
        check(result.steps === TRIPS && result.text === FINAL_ANSWER, `peer in-process run made ${result.steps} steps`);
      },
      async durable() {
        const { result, workflowId } = await started.run(input, TRIPS);
        check(result.steps === TRIPS && result.text === FINAL_ANSWER, `peer durable run made ${result.steps} steps`);
        return bench.client.workflow.getHandle(workflowId);
      },
      close: () => started.close(),
    };
    try {
      await peer.floor();
      await peer.durable();
    } catch (error) {
      await peer.close();
      throw error;
    }
  } catch (error) {
    peer = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  try {
    return await withBenchWorker(bench, [agent], async (queue) => {
      taskQueue = queue;
      const contenders = "error" in peer ? [ours] : [ours, peer];
      const [mine, theirs] = await measure(runs, warmup(bench), contenders);
      const figures = async ({ last, ...timing }: Timing): Promise<OverheadFigures> => ({ runs, trips: TRIPS, toolCalls, ...timing, history: historyFigures(await historySize(last), toolCalls) });
      return { ours: await figures(mine!), peer: theirs ? await figures(theirs) : (peer as { error: string }) };
    });
  } finally {
    if (!("error" in peer)) await peer.close();
  }
}
