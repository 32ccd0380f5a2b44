/**
 * The throughput benchmark's worker, run as a child process so its RSS and CPU time are its own:
 * `node --import tsx --conditions=durable-agent-source bench/throughput-worker.ts`, configured by the environment
 * (TEMPORAL_ADDRESS, BENCH_TASK_QUEUE, BENCH_MODEL_URL, BENCH_LIBRARY: durable-agent or a peer's
 * package name, BENCH_WORKFLOW_BUNDLE: a prebuilt bundle, so the worker's peak RSS is not the
 * bundler's). Prints "ready" once polling; answers "cpu" on stdin with its CPU time so far and
 * "warnings" with the `MaxListenersExceededWarning`s it has printed; SIGTERM shuts it down.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from "@temporalio/worker";
import { ai } from "../src/index.js";
import { benchAgent, THROUGHPUT_WORKER_OPTIONS, type BenchExecution } from "./scenario.js";
import { BARE, bareActivities } from "./bare-activities.js";
import { answerProbes, countListenerWarnings, serveUntilSigterm } from "./worker-probe.js";

const env = (name: string) =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is not set`);
  })();

const listenerWarnings = countListenerWarnings();
Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const common = {
  connection,
  taskQueue: env("BENCH_TASK_QUEUE"),
  workflowBundle: { codePath: env("BENCH_WORKFLOW_BUNDLE") },
};
const library = env("BENCH_LIBRARY");
const baseURL = env("BENCH_MODEL_URL");
let worker: Worker;
if (library === "durable-agent") {
  const agent = benchAgent(
    baseURL,
    "bench-trips",
    1000,
    (process.env.BENCH_EXECUTION ?? "activities") as BenchExecution,
  );
  worker = await ai.worker({ ...common, agents: [agent], workerOptions: THROUGHPUT_WORKER_OPTIONS });
} else if (library === "@temporalio/ai-sdk") {
  const { aiSdkPlugin, aiSdkActivities } = await import("./peer.js");
  worker = await Worker.create({
    ...common,
    ...THROUGHPUT_WORKER_OPTIONS,
    activities: aiSdkActivities,
    plugins: [aiSdkPlugin(baseURL).plugin],
  });
} else if (library === "@temporalio/openai-agents") {
  const { openaiAgentsPlugin, openaiAgentsActivities } = await import("./peer-openai-agents.js");
  worker = await Worker.create({
    ...common,
    ...THROUGHPUT_WORKER_OPTIONS,
    activities: openaiAgentsActivities,
    plugins: [openaiAgentsPlugin(baseURL).plugin],
  });
} else if (library === BARE) {
  worker = await Worker.create({ ...common, ...THROUGHPUT_WORKER_OPTIONS, activities: bareActivities });
} else throw new Error(`BENCH_LIBRARY: unknown library ${library}`);
answerProbes({ warnings: () => `warnings ${listenerWarnings()}` });
await serveUntilSigterm(worker, connection);
