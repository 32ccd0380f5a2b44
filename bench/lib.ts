/** Shared benchmark plumbing: one dev server, one worker per agent set, percentiles, history sizes. */
import { randomUUID } from "node:crypto";
import { DefaultLogger, NativeConnection, Runtime, type Worker } from "@temporalio/worker";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { ai, type Agent } from "../src/index.js";
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer, type DevServer } from "../src/testing/index.js";
import { round } from "./numbers.js";

export { percentile, round } from "./numbers.js";

Runtime.install({ logger: new DefaultLogger("WARN") });

export interface Bench {
  server: DevServer;
  client: Client;
  connection: NativeConnection;
  quick: boolean;
  /** The server's dynamic config values beyond the CLI's defaults, `key=value`. */
  dynamicConfig: string[];
}

/** The server's own defaults of the settings `DEV_SERVER_DYNAMIC_CONFIG` changes: the dev server as the CLI ships it. */
export const CLI_DEFAULT_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  "history.transferProcessorMaxPollRPS": "20",
  "history.timerProcessorMaxTimeShift": '"1s"',
  "history.timerProcessorMaxPollRPS": "20",
};

/** `--dynamic-config-value key=value` flags for the values. */
export const dynamicConfigFlags = (values: Readonly<Record<string, string>>): string[] =>
  Object.entries(values).flatMap(([key, value]) => ["--dynamic-config-value", `${key}=${value}`]);

export async function startBench(extraArgs: string[] = []): Promise<Bench> {
  const server = await startDevServer({ extraArgs });
  const connection = await NativeConnection.connect({ address: server.address });
  const given = extraArgs.filter((_, i) => extraArgs[i - 1] === "--dynamic-config-value");
  const dynamicConfig = {
    ...DEV_SERVER_DYNAMIC_CONFIG,
    ...Object.fromEntries(given.map((kv) => kv.split("=") as [string, string])),
  };
  return {
    server,
    client: server.env.client,
    connection,
    quick: process.argv.includes("--quick"),
    dynamicConfig: Object.entries(dynamicConfig).map(([k, v]) => `${k}=${v}`),
  };
}

/** Runs `fn` with a worker for the agents on a fresh task queue. */
export async function withBenchWorker<T>(
  bench: Bench,
  agents: Agent[],
  fn: (taskQueue: string, worker: Worker) => Promise<T>,
  workerOptions = {},
): Promise<T> {
  const taskQueue = `bench-${randomUUID()}`;
  const worker = await ai.worker({ agents, connection: bench.connection, taskQueue, workerOptions });
  return worker.runUntil(fn(taskQueue, worker));
}

/** A history's event count and its size in bytes (as the server stores it: protobuf). */
export async function historySize(handle: WorkflowHandle): Promise<{ events: number; bytes: number }> {
  const history = await handle.fetchHistory();
  const { temporal } = (await import("@temporalio/proto")).default;
  return {
    events: history.events?.length ?? 0,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
  };
}

/** A history's size summed over a continue-as-new chain, from the first run; `runs` is the chain's length. */
export async function chainHistorySize(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<{ events: number; bytes: number; runs: number }> {
  const { temporal } = (await import("@temporalio/proto")).default;
  const total = { events: 0, bytes: 0, runs: 0 };
  for (let runId: string | undefined = firstRunId; runId;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    total.events += history.events?.length ?? 0;
    total.bytes += temporal.api.history.v1.History.encode(history).finish().length;
    total.runs += 1;
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return total;
}

/**
 * Where a run's time went, from its history's timestamps: milliseconds in workflow tasks
 * (scheduled → completed, of which waiting: scheduled → started) and in each activity type
 * (scheduled → completed), and the whole run.
 */
export async function historyTimeline(handle: WorkflowHandle): Promise<{
  totalMs: number;
  workflowTasksMs: number;
  workflowTaskWaitMs: number;
  activitiesMs: Record<string, number>;
}> {
  const events = (await handle.fetchHistory()).events ?? [];
  const ms = (e: (typeof events)[number]) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  const out = {
    totalMs: events.length ? round(ms(events.at(-1)!) - ms(events[0]!)) : 0,
    workflowTasksMs: 0,
    workflowTaskWaitMs: 0,
    activitiesMs: {} as Record<string, number>,
  };
  for (const e of events) {
    const wft = e.workflowTaskCompletedEventAttributes;
    if (wft) {
      out.workflowTasksMs += ms(e) - ms(byId.get(Number(wft.scheduledEventId))!);
      out.workflowTaskWaitMs += ms(byId.get(Number(wft.startedEventId))!) - ms(byId.get(Number(wft.scheduledEventId))!);
    }
    const act = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (act) {
      const scheduled = byId.get(Number(act.scheduledEventId))!;
      const name = scheduled.activityTaskScheduledEventAttributes?.activityType?.name ?? "?";
      out.activitiesMs[name] = (out.activitiesMs[name] ?? 0) + ms(e) - ms(scheduled);
    }
  }
  out.workflowTasksMs = round(out.workflowTasksMs);
  out.workflowTaskWaitMs = round(out.workflowTaskWaitMs);
  for (const name of Object.keys(out.activitiesMs)) out.activitiesMs[name] = round(out.activitiesMs[name]!);
  return out;
}
