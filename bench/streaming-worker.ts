/**
 * The streaming benchmark's worker, run as a child process so its CPU time is its own:
 * `node --import tsx --conditions=durable-agent-source bench/streaming-worker.ts`, configured by
 * the environment (TEMPORAL_ADDRESS, BENCH_TASK_QUEUE, BENCH_MODEL_URL, BENCH_LIBRARY:
 * durable-agent or a peer's package name; BENCH_WORKER_OPTIONS: JSON worker options, for the
 * heartbeat-throttle candidates; BENCH_REDIS_URL: ours publishes answer deltas to that Redis;
 * BENCH_WORKFLOW_BUNDLE: ours loads that prebuilt bundle instead of bundling). Prints "ready" once
 * polling; each line "cpu" on stdin is answered with "cpu <user+system ms so far>"; SIGTERM shuts
 * it down.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from "@temporalio/worker";
import { ai, redisDeltas } from "../src/index.js";
import { STREAM_AGENT, streamingAgent } from "./streaming-scenario.js";
import { answerProbes, serveUntilSigterm } from "./worker-probe.js";

const env = (name: string) =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is not set`);
  })();

Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const taskQueue = env("BENCH_TASK_QUEUE");
const library = env("BENCH_LIBRARY");
const baseURL = env("BENCH_MODEL_URL");
const workerOptions = JSON.parse(process.env.BENCH_WORKER_OPTIONS ?? "{}") as Record<string, unknown>;
let worker: Worker;
if (library === "durable-agent") {
  const redisUrl = process.env.BENCH_REDIS_URL;
  const bundlePath = process.env.BENCH_WORKFLOW_BUNDLE;
  worker = await ai.worker({
    connection,
    taskQueue,
    agents: [streamingAgent(baseURL, STREAM_AGENT)],
    workerOptions,
    ...(redisUrl ? { deltas: redisDeltas({ url: redisUrl }) } : {}),
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
  });
} else if (library === "@temporalio/ai-sdk") {
  const { preparePeer, aiSdkActivities } = await import("./peer.js");
  const { plugin, bundle } = preparePeer(baseURL);
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await bundle,
    activities: aiSdkActivities,
    plugins: [plugin],
    ...workerOptions,
  });
} else if (library === "@temporalio/openai-agents") {
  const { prepareOpenAIAgentsPeer, openaiAgentsActivities } = await import("./peer-openai-agents.js");
  const { plugin, bundle } = prepareOpenAIAgentsPeer(baseURL);
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await bundle,
    activities: openaiAgentsActivities,
    plugins: [plugin],
    ...workerOptions,
  });
} else throw new Error(`BENCH_LIBRARY: unknown library ${library}`);
answerProbes();
await serveUntilSigterm(worker, connection);
