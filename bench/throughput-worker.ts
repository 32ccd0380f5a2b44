/**
 * The throughput benchmark's worker, run as a child process so its RSS is its own:
 * `node --import tsx --conditions=durable-agent-source bench/throughput-worker.ts`, configured by the environment
 * (TEMPORAL_ADDRESS, BENCH_TASK_QUEUE, BENCH_MODEL_URL, BENCH_WORKFLOW_BUNDLE: a prebuilt bundle,
 * so the worker's peak RSS is not the bundler's). Prints "ready" once polling; SIGTERM shuts it down.
 */
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { ai } from "../src/index.js";
import { benchAgent, THROUGHPUT_WORKER_OPTIONS } from "./scenario.js";

const env = (name: string) => process.env[name] ?? (() => { throw new Error(`${name} is not set`); })();

Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const worker = await ai.worker({
  agents: [benchAgent(env("BENCH_MODEL_URL"))],
  connection,
  taskQueue: env("BENCH_TASK_QUEUE"),
  workflowBundle: { codePath: env("BENCH_WORKFLOW_BUNDLE") },
  workerOptions: THROUGHPUT_WORKER_OPTIONS,
});
const running = worker.run();
console.log("ready");
await running;
await connection.close();
