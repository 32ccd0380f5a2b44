/**
 * The cost of durability on the compared conversation (TRIPS model calls, one tool call on each
 * but the last): per-trip overhead of a durable run over the in-process floor, and the history a
 * run writes, for us and for the peers. Each round runs every contender's floor then its durable
 * run, contender after contender (interleaved rounds), so load that comes and goes hits every
 * contender alike and round i of ours pairs with round i of a peer for the ratio's interval.
 */
import type { WorkflowHandle } from "@temporalio/client";
import { historySize, historyTimeline, percentile, round, withBenchWorker, type Bench } from "./lib.js";
import { interleaveRounds, MIN_ROUNDS_TO_DECIDE } from "./stats/index.js";
import { aiSdkBenchAgent, aiSdkContender } from "./ai-sdk-contender.js";
import { runInProcess } from "./in-process.js";
import type { Peer } from "./peer.js";
import {
  benchAgent,
  EXECUTION_LABEL,
  FINAL_ANSWER,
  inputFor,
  TOOL_NAME,
  TRIPS,
  type BenchExecution,
} from "./scenario.js";

export interface OverheadFigures {
  runs: number;
  trips: number;
  toolCalls: number;
  floorRunMs: { p50: number; p95: number };
  durableRunMs: { p50: number; p95: number };
  /** (durable run − in-process run) / trips, over the paired runs. */
  perTripOverheadMs: { p50: number; p95: number };
  /** The per-trip overhead of each measured round, in round order (for intervals of ratios between contenders). */
  perTripOverheadMsByRound: number[];
  history: {
    events: number;
    bytes: number;
    eventsPerTrip: number;
    bytesPerTrip: number;
    eventsPerToolCall: number;
    bytesPerToolCall: number;
  };
  /** Where a durable run's time went per trip, from its history's timestamps (mean over the measured runs). */
  timelinePerTripMs: {
    run: number;
    workflowTasks: number;
    workflowTaskWait: number;
    activities: Record<string, number>;
  };
}

/** Rounds under --quick: the fewest that decide a goal (MIN_ROUNDS_TO_DECIDE), so a quick run's ratios have intervals. */
const QUICK_ROUNDS = MIN_ROUNDS_TO_DECIDE;

/** Discarded rounds before measuring (bundle caches, connection pools, JIT). */
const warmup = (bench: Bench) => (bench.quick ? 0 : 3);

/** One side of the comparison: its in-process floor and its durable run of the conversation. */
interface Contender {
  floor(): Promise<void>;
  durable(): Promise<WorkflowHandle>;
}

type Timing = Pick<
  OverheadFigures,
  "floorRunMs" | "durableRunMs" | "perTripOverheadMs" | "perTripOverheadMsByRound" | "timelinePerTripMs"
> & {
  last: WorkflowHandle;
};

/**
 * Runs each contender's floor then its durable run, contender after contender, in `runs` rounds
 * after `warmupRuns` discarded ones (interleaved rounds), so load from elsewhere on the machine
 * hits every figure alike.
 */
async function measure(runs: number, warmupRuns: number, contenders: Contender[]): Promise<Timing[]> {
  await interleaveRounds(contenders, warmupRuns, async (c) => {
    await c.floor();
    await c.durable();
  });
  const rounds = await interleaveRounds(contenders, runs, async (c) => {
    let t = performance.now();
    await c.floor();
    const floorMs = performance.now() - t;
    t = performance.now();
    const handle = await c.durable();
    const durableMs = performance.now() - t;
    return { floorMs, durableMs, overhead: (durableMs - floorMs) / TRIPS, handle };
  });
  const p = (values: number[]) => ({ p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) });
  return Promise.all(
    rounds.map(async (s) => ({
      floorRunMs: p(s.map((r) => r.floorMs)),
      durableRunMs: p(s.map((r) => r.durableMs)),
      perTripOverheadMs: p(s.map((r) => r.overhead)),
      perTripOverheadMsByRound: s.map((r) => round(r.overhead, 2)),
      timelinePerTripMs: await meanTimeline(s.map((r) => r.handle)),
      last: s.at(-1)!.handle,
    })),
  );
}

async function meanTimeline(handles: WorkflowHandle[]): Promise<OverheadFigures["timelinePerTripMs"]> {
  const timelines = await Promise.all(handles.map((handle) => historyTimeline(handle)));
  const per = (total: number) => round(total / timelines.length / TRIPS);
  const activities: Record<string, number> = {};
  for (const name of new Set(timelines.flatMap((t) => Object.keys(t.activitiesMs))))
    activities[name] = per(timelines.reduce((sum, t) => sum + (t.activitiesMs[name] ?? 0), 0));
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

/** One library's side of the comparison, by name, with its activity type names for the timeline. */
export interface NamedContender extends Contender {
  name: string;
  library: string;
  modelActivity: string;
  toolActivity: string;
}

/** A contender's figures, or why it did not run. */
export type ContenderFigures =
  | (OverheadFigures & { name: string; library: string; modelActivity: string; toolActivity: string })
  | { name: string; library: string; error: string };

/** Ours, in one execution setting: the durable run against the in-process driver of the same agent. */
export function ourContender(
  bench: Bench,
  baseURL: string,
  execution: BenchExecution,
  taskQueue: () => string,
): NamedContender {
  const input = inputFor(TRIPS);
  const agent = benchAgent(baseURL, "bench-trips", 1000, execution);
  return {
    name: `durable-agent (${EXECUTION_LABEL[execution]})`,
    library: "durable-agent",
    modelActivity: "model.call",
    toolActivity: "tool.execute",
    async floor() {
      const result = await runInProcess(agent, input);
      check(result.trips === TRIPS && result.reply === FINAL_ANSWER, `in-process run made ${result.trips} trips`);
    },
    async durable() {
      const handle = await agent.start(input, { client: bench.client, taskQueue: taskQueue() });
      const result = await handle.result();
      check(result.trips === TRIPS && result.reply === FINAL_ANSWER, `durable run made ${result.trips} trips`);
      return handle.workflow;
    },
  };
}

/** A peer as a contender: started and tried once, or the reason it could not run. */
async function peerContender(
  bench: Bench,
  name: string,
  start: () => Promise<Peer>,
  activities: { model: string; tool: string },
): Promise<(NamedContender & { close(): Promise<void> }) | { name: string; library: string; error: string }> {
  const input = inputFor(TRIPS);
  try {
    const started = await start();
    const peer = {
      name,
      library: name,
      modelActivity: activities.model,
      toolActivity: activities.tool,
      async floor() {
        const result = await started.runInProcess(input, TRIPS);
        check(
          result.steps === TRIPS && result.text === FINAL_ANSWER,
          `${name}: in-process run made ${result.steps} steps`,
        );
      },
      async durable() {
        const { result, workflowId } = await started.run(input, TRIPS);
        check(
          result.steps === TRIPS && result.text === FINAL_ANSWER,
          `${name}: durable run made ${result.steps} steps`,
        );
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
    return peer;
  } catch (error) {
    return { name, library: name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/**
 * Every contender on one server: ours in each execution setting, and both peers (each durable run
 * against its own in-process floor), measured in the same rounds. A peer that cannot be loaded or
 * run is reported with its error; the others go on.
 */
export async function benchOverhead(
  bench: Bench,
  baseURL: string,
  executions: readonly BenchExecution[],
): Promise<ContenderFigures[]> {
  const runs = bench.quick ? QUICK_ROUNDS : 30;
  const toolCalls = TRIPS - 1;
  let taskQueue = "";
  const ours = [
    ...executions.map((execution) => ourContender(bench, baseURL, execution, () => taskQueue)),
    aiSdkContender(bench, baseURL, () => taskQueue),
  ];
  const { startPeer } = await import("./peer.js");
  const { startOpenAIAgentsPeer } = await import("./peer-openai-agents.js");
  const peers = [
    await peerContender(bench, "@temporalio/ai-sdk", () => startPeer(bench, baseURL), {
      model: "invokeModel",
      tool: "recordStep",
    }),
    await peerContender(bench, "@temporalio/openai-agents", () => startOpenAIAgentsPeer(bench, baseURL), {
      model: "invokeModelActivity",
      tool: TOOL_NAME,
    }),
  ];
  try {
    // One worker serves every setting of ours (one agent per setting, by name).
    const agents = [
      ...executions.map((execution) => benchAgent(baseURL, "bench-trips", 1000, execution)),
      aiSdkBenchAgent(baseURL),
    ];
    return await withBenchWorker(bench, agents, async (queue) => {
      taskQueue = queue;
      const contenders = [
        ...ours,
        ...peers.filter((p): p is NamedContender & { close(): Promise<void> } => !("error" in p)),
      ];
      const timings = await measure(runs, warmup(bench), contenders);
      const figures = await Promise.all(
        timings.map(async ({ last, ...timing }, i): Promise<ContenderFigures> => {
          const c = contenders[i]!;
          return {
            name: c.name,
            library: c.library,
            modelActivity: c.modelActivity,
            toolActivity: c.toolActivity,
            runs,
            trips: TRIPS,
            toolCalls,
            ...timing,
            history: historyFigures(await historySize(last), toolCalls),
          };
        }),
      );
      return [...figures, ...peers.flatMap((p) => ("error" in p ? [p] : []))];
    });
  } finally {
    for (const p of peers) if (!("error" in p)) await p.close();
  }
}
