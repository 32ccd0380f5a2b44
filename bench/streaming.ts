/**
 * Streaming figures (issue 23), ours beside both peers' streaming modes: the same 3-trip
 * conversation with answers of 200 chunks at 200 chunks a second, streamed to one subscriber.
 * Per streamed trip: history events and bytes, workflow tasks, billable actions (signals +
 * updates + workflow tasks, from the history, + activity heartbeats, from the server's request
 * counters), queries (also billable on Temporal Cloud, counted apart), first-delta latency
 * (the model's first chunk → the subscriber's first text delta) and the worker's CPU time (the
 * worker runs in a child process of its own), and each run's time from its start to its result.
 * A dev server of its own, with metrics on. Beside them, Vercel's WorkflowAgent on the Workflow
 * DevKit's local world (bench/peer-workflow-agent.ts): its event log stands for the history, and
 * it has no Temporal actions to count.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { WorkflowStreamClient } from "@temporalio/workflow-streams/client";
import { ai, bundleAgentWorkflows } from "../src/index.js";
import { startDevServer, startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { percentile, round } from "./lib.js";
import {
  STREAM_AGENT,
  STREAM_CHUNK_SIZE,
  STREAM_CHUNKS_PER_SECOND,
  STREAM_TRIPS,
  streamScript,
} from "./streaming-scenario.js";
import { inputFor } from "./scenario.js";
import { lineChild } from "./line-child.js";
import { prepareWorkflowAgentPeer, startWorkflowAgentApp, WorkflowAgentInstallError } from "./peer-workflow-agent.js";

/** A streaming subject: a library's streaming mode, or ours with other settings (a candidate). */
export interface StreamingSubject {
  name: string;
  library: "durable-agent" | "@temporalio/ai-sdk" | "@temporalio/openai-agents" | "@ai-sdk/workflow";
  /** Ours only: stream text (false: the unstreamed baseline, read by no subscriber). */
  streamText?: boolean;
  /** Worker options for the child worker (e.g. a heartbeat throttle candidate). */
  workerOptions?: Record<string, unknown>;
}

/** Figures per streamed trip of one subject. */
export interface StreamingFigures {
  name: string;
  library: string;
  runs: number;
  perTrip: {
    /** History events (WorkflowAgent: its event log's events). */
    historyEvents: number;
    /** History bytes (WorkflowAgent: its event log's events as JSON). */
    historyBytes: number;
    /** The Temporal counts below are absent for WorkflowAgent, which runs on no Temporal server. */
    workflowTasks?: number;
    signals?: number;
    updates?: number;
    activityHeartbeats?: number;
    /** Signals + updates + workflow tasks + activity heartbeats. */
    billableActions?: number;
    /** Query calls (billable on Temporal Cloud too; not in billableActions, as the issue counts them). */
    queries?: number;
    /** The worker's CPU time (WorkflowAgent: its app server's, which also serves the stream). */
    workerCpuMs: number;
  };
  /** A run's start → its result (the whole streamed conversation), per run. */
  runMs?: { p50: number; p95: number };
  /** The model's first chunk → the subscriber's first text delta, per run. */
  firstDeltaLatencyMs?: { p50: number; p95: number };
  /** The same, each run's, in run order (for the goal's interval). */
  firstDeltaLatencySamplesMs?: number[];
  /** The model's last chunk → the subscriber's last text delta (does the client keep up with the model?), per run. */
  lastDeltaLagMs?: { p50: number; p95: number };
  /** The same, each run's, in run order (for the goal's interval). */
  lastDeltaLagSamplesMs?: number[];
}

/** Ours (unstreamed as the baseline, and streamed) and both peers' streaming modes. */
export const STREAMING_SUBJECTS: StreamingSubject[] = [
  { name: "durable-agent (unstreamed)", library: "durable-agent", streamText: false },
  { name: "durable-agent", library: "durable-agent", streamText: true },
  { name: "@temporalio/ai-sdk streamText", library: "@temporalio/ai-sdk" },
  { name: "@temporalio/openai-agents stream: true", library: "@temporalio/openai-agents" },
  { name: "@ai-sdk/workflow WorkflowAgent (local world)", library: "@ai-sdk/workflow" },
];

/** Our heartbeat-throttle candidates, measured beside the kept 250 ms. */
export const HEARTBEAT_CANDIDATES: StreamingSubject[] = [100, 1000].map((ms) => ({
  name: `durable-agent, heartbeat throttle ${ms} ms`,
  library: "durable-agent",
  streamText: true,
  workerOptions: { maxHeartbeatThrottleInterval: `${ms} milliseconds` },
}));

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The frontend's request counters by operation (every namespace), from the server's Prometheus endpoint. */
async function requestCounts(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const match = /^service_requests\{.*operation="([A-Za-z]+)".*service_name="frontend".*\} (\d+)/.exec(line);
    if (match) counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** The server's counters settle within its reporting interval: wait until two reads agree. */
async function settledCounts(metricsUrl: string): Promise<Record<string, number>> {
  let last = JSON.stringify(await requestCounts(metricsUrl));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const now = await requestCounts(metricsUrl);
    if (JSON.stringify(now) === last) return now;
    last = JSON.stringify(now);
  }
}

/** A worker for the subject in its own process (with `env` added to its environment); `cpuMs()` reads its CPU time so far. */
let ourBundlePath: Promise<string> | undefined;
/**
 * Our workflow bundle (`bundleAgentWorkflows()`, which `npm run bench` starts early) as a file,
 * written once per process: each worker child of ours loads it (BENCH_WORKFLOW_BUNDLE) instead of
 * bundling the same code again. Measured figures start after each worker's warm-up run either way.
 */
function ourWorkflowBundle(): Promise<string> {
  ourBundlePath ??= bundleAgentWorkflows().then(({ code }) => {
    const dir = mkdtempSync(join(tmpdir(), "bench-bundle-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "durable-agent-workflows.js");
    writeFileSync(path, code);
    return path;
  });
  return ourBundlePath;
}

export async function startWorker(
  address: string,
  baseURL: string,
  subject: StreamingSubject,
  taskQueue: string,
  env: Record<string, string> = {},
) {
  const bundle = subject.library === "durable-agent" ? { BENCH_WORKFLOW_BUNDLE: await ourWorkflowBundle() } : {};
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=durable-agent-source",
      new URL("./streaming-worker.ts", import.meta.url).pathname,
    ],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        BENCH_TASK_QUEUE: taskQueue,
        BENCH_MODEL_URL: baseURL,
        BENCH_LIBRARY: subject.library,
        BENCH_WORKER_OPTIONS: JSON.stringify(subject.workerOptions ?? {}),
        ...bundle,
        ...env,
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const { next, exited, cpuMs } = lineChild(child, `the ${subject.library} worker`);
  await next("ready");
  return {
    /** Rejects if the worker dies (a peer's worker has crashed under load): race a run against it. */
    exited,
    cpuMs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const stopped = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await stopped;
    },
  };
}

/** One streamed run of the subject: its workflow handle and when the subscriber saw its first text delta. */
async function streamedRun(
  client: Client,
  subject: StreamingSubject,
  taskQueue: string,
): Promise<{ handle: WorkflowHandle; firstDeltaAt?: number; lastDeltaAt?: number }> {
  const input = inputFor(STREAM_TRIPS);
  if (subject.library === "durable-agent") {
    const agent = ai.agent({ name: STREAM_AGENT, model: ai.openai("gpt-bench") }); // the client's view: the name is enough
    const run = await agent.start(input, { client, taskQueue, streamText: subject.streamText !== false });
    if (subject.streamText === false) {
      await run.result();
      return { handle: run.workflow };
    }
    let firstDeltaAt: number | undefined;
    let lastDeltaAt: number | undefined;
    for await (const event of run.stream()) {
      if (event.type !== "text.delta") continue;
      lastDeltaAt = Date.now();
      firstDeltaAt ??= lastDeltaAt;
    }
    return { handle: run.workflow, firstDeltaAt, lastDeltaAt };
  }
  const workflowId = `bench-stream-${randomUUID()}`;
  const workflow = subject.library === "@temporalio/ai-sdk" ? "peerStreamTrips" : "openaiAgentsStreamTrips";
  const handle = await client.workflow.start(workflow, { taskQueue, workflowId, args: [input, STREAM_TRIPS + 1] });
  const isDelta = (part: { type?: string }) =>
    subject.library === "@temporalio/ai-sdk" ? part.type === "text-delta" : part.type === "output_text_delta";
  let firstDeltaAt: number | undefined;
  let lastDeltaAt: number | undefined;
  const subscribing = (async () => {
    for await (const item of WorkflowStreamClient.create(client, workflowId).topic("tokens").subscribe()) {
      const value: unknown = item.data; // decoded by the topic handle: the AI SDK's parts as JSON bytes, the Agents SDK's events as objects
      const part = (value instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(value)) : value) as {
        type?: string;
      };
      if (!isDelta(part)) continue;
      lastDeltaAt = Date.now();
      firstDeltaAt ??= lastDeltaAt;
    }
  })();
  subscribing.catch(() => undefined); // awaited below, after the result
  await handle.result();
  await subscribing;
  return { handle, firstDeltaAt, lastDeltaAt };
}

/** History counts of a run. */
async function historyCounts(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  const { temporal } = (await import("@temporalio/proto")).default;
  const events = history.events ?? [];
  return {
    events: events.length,
    bytes: temporal.api.history.v1.History.encode(history).finish().length,
    workflowTasks: events.filter((e) => e.workflowTaskScheduledEventAttributes).length,
    signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length,
    updates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
  };
}

/** A subject that could not be measured, and why. */
export interface StreamingError {
  name: string;
  library: string;
  error: string;
}

/** Measures each subject in turn on a dev server of its own (metrics on), `runs` streamed runs each after a warm-up. */
export async function benchStreaming(options: {
  quick: boolean;
  subjects?: StreamingSubject[];
}): Promise<(StreamingFigures | StreamingError)[]> {
  const runs = options.quick ? 3 : 10;
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const server = await startDevServer({ extraArgs: ["--metrics-port", String(metricsPort)] });
  const model: ScriptedModel = await startScriptedModel(streamScript, {
    chunkSize: STREAM_CHUNK_SIZE,
    chunksPerSecond: STREAM_CHUNKS_PER_SECOND,
  });
  const figures: (StreamingFigures | StreamingError)[] = [];
  try {
    for (const subject of options.subjects ?? STREAMING_SUBJECTS) {
      if (subject.library === "@ai-sdk/workflow") {
        figures.push(await benchWorkflowAgent(subject, model, runs));
        continue;
      }
      const taskQueue = `bench-stream-${randomUUID()}`;
      const worker = await startWorker(server.address, model.baseURL, subject, taskQueue);
      const run = () => Promise.race([streamedRun(server.env.client, subject, taskQueue), worker.exited]);
      try {
        await run(); // warm-up: bundles loaded, connections open
        const before = await settledCounts(metricsUrl);
        const cpuBefore = await worker.cpuMs();
        const latencies: number[] = [];
        const lags: number[] = [];
        const durations: number[] = [];
        const totals = { events: 0, bytes: 0, workflowTasks: 0, signals: 0, updates: 0 };
        for (let i = 0; i < runs; i++) {
          const firstRequest = model.requests.length;
          const started = Date.now();
          const { handle, firstDeltaAt, lastDeltaAt } = await run();
          durations.push(Date.now() - started);
          const firstChunkAt = model.requests[firstRequest]?.firstChunkAt;
          const lastChunkAt = model.requests.at(-1)?.lastChunkAt;
          if (firstDeltaAt !== undefined && firstChunkAt !== undefined) latencies.push(firstDeltaAt - firstChunkAt);
          if (lastDeltaAt !== undefined && lastChunkAt !== undefined) lags.push(lastDeltaAt - lastChunkAt);
          const counts = await historyCounts(handle);
          for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts[key];
        }
        const cpuMs = (await worker.cpuMs()) - cpuBefore;
        const after = await settledCounts(metricsUrl);
        const delta = (operation: string) => (after[operation] ?? 0) - (before[operation] ?? 0);
        const perTrip = (n: number, digits = 1) => round(n / (runs * STREAM_TRIPS), digits);
        const heartbeats = delta("RecordActivityTaskHeartbeat") + delta("RecordActivityTaskHeartbeatById");
        figures.push({
          name: subject.name,
          library: subject.library,
          runs,
          perTrip: {
            historyEvents: perTrip(totals.events),
            historyBytes: perTrip(totals.bytes, 0),
            workflowTasks: perTrip(totals.workflowTasks),
            signals: perTrip(totals.signals),
            updates: perTrip(totals.updates),
            activityHeartbeats: perTrip(heartbeats),
            billableActions: perTrip(totals.signals + totals.updates + totals.workflowTasks + heartbeats),
            queries: perTrip(delta("QueryWorkflow")),
            workerCpuMs: perTrip(cpuMs),
          },
          ...(latencies.length
            ? {
                firstDeltaLatencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
                firstDeltaLatencySamplesMs: latencies,
              }
            : {}),
          ...(lags.length
            ? { lastDeltaLagMs: { p50: percentile(lags, 50), p95: percentile(lags, 95) }, lastDeltaLagSamplesMs: lags }
            : {}),
          runMs: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
        });
        console.log(`bench: streaming: ${subject.name}: ${JSON.stringify(figures.at(-1))}`);
      } catch (error) {
        figures.push({ name: subject.name, library: subject.library, error: (error as Error).message });
        console.log(`bench: streaming: ${subject.name} did not run: ${(error as Error).message}`);
      } finally {
        await worker.stop();
      }
    }
  } finally {
    await model.close();
    await server.stop();
  }
  return figures;
}

/**
 * WorkflowAgent's figures: the same conversation against the same scripted model, `runs` streamed
 * runs after a warm-up, read by a client over HTTP as a framework's route would serve them. Skipped
 * with the reason printed if its install fails; any other failure is its error row.
 */
async function benchWorkflowAgent(
  subject: StreamingSubject,
  model: ScriptedModel,
  runs: number,
): Promise<StreamingFigures | StreamingError> {
  const failed = (error: unknown, what: string) => {
    console.log(`bench: streaming: ${subject.name} ${what}: ${(error as Error).message}`);
    return { name: subject.name, library: subject.library, error: `${what}: ${(error as Error).message}` };
  };
  let peer;
  try {
    peer = prepareWorkflowAgentPeer();
  } catch (error) {
    if (error instanceof WorkflowAgentInstallError) return failed(error, "skipped, its install failed");
    return failed(error, "did not build");
  }
  console.log(
    `bench: streaming: ${subject.name}: npm install ${peer.installMs} ms, workflow build ${peer.buildMs} ms (0: up to date)`,
  );
  const app = await startWorkflowAgentApp(peer.node);
  try {
    const input = inputFor(STREAM_TRIPS);
    const run = () => Promise.race([app.run(input, model.baseURL), app.exited]);
    await run(); // warm-up: the flow bundle loaded, connections open
    const cpuBefore = await app.cpuMs();
    const latencies: number[] = [];
    const lags: number[] = [];
    const durations: number[] = [];
    let events = 0;
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const firstRequest = model.requests.length;
      const started = Date.now();
      const result = await run();
      durations.push(Date.now() - started);
      const firstChunkAt = model.requests[firstRequest]?.firstChunkAt;
      const lastChunkAt = model.requests.at(-1)?.lastChunkAt;
      if (result.firstDeltaAt !== undefined && firstChunkAt !== undefined)
        latencies.push(result.firstDeltaAt - firstChunkAt);
      if (result.lastDeltaAt !== undefined && lastChunkAt !== undefined) lags.push(result.lastDeltaAt - lastChunkAt);
      events += result.events;
      bytes += result.eventBytes;
    }
    const cpuMs = (await app.cpuMs()) - cpuBefore;
    const perTrip = (n: number, digits = 1) => round(n / (runs * STREAM_TRIPS), digits);
    const figures: StreamingFigures = {
      name: subject.name,
      library: subject.library,
      runs,
      perTrip: { historyEvents: perTrip(events), historyBytes: perTrip(bytes, 0), workerCpuMs: perTrip(cpuMs) },
      ...(latencies.length
        ? { firstDeltaLatencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) } }
        : {}),
      ...(lags.length ? { lastDeltaLagMs: { p50: percentile(lags, 50), p95: percentile(lags, 95) } } : {}),
      runMs: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    };
    console.log(`bench: streaming: ${subject.name}: ${JSON.stringify(figures)}`);
    return figures;
  } catch (error) {
    return failed(error, "did not run");
  } finally {
    await app.stop();
  }
}
