/**
 * The capacity benchmark's worker, a child process so its CPU time and memory are its own:
 * `node --import tsx --conditions=durable-agent-source bench/capacity/worker.ts`, configured by the
 * environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, BENCH_TASK_QUEUE, BENCH_MODEL_URL, and
 * BENCH_REDIS_URL for answer deltas through Redis). Prints "ready" once polling; answers each line
 * "cpu" on stdin with "cpu <user+system ms so far>" and "rss" with "rss <bytes now> <peak bytes>".
 */
import { readFileSync } from "node:fs";
import { DefaultLogger, NativeConnection, Runtime } from "@temporalio/worker";
import { ai, redisDeltas } from "../../src/index.js";
import { answerProbes, serveUntilSigterm } from "../worker-probe.js";
import { CHAT_AGENT, chatAgent } from "./chat.js";

const env = (name: string) =>
  process.env[name] ??
  (() => {
    throw new Error(`${name} is not set`);
  })();

/** The process's resident set now and its peak (VmHWM), in bytes. */
function residentBytes(): { now: number; peak: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { now: kib("VmRSS"), peak: kib("VmHWM") };
}

Runtime.install({ logger: new DefaultLogger("WARN") });
const connection = await NativeConnection.connect({ address: env("TEMPORAL_ADDRESS") });
const redisUrl = process.env.BENCH_REDIS_URL;
const worker = await ai.worker({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? "default",
  taskQueue: env("BENCH_TASK_QUEUE"),
  agents: [chatAgent(env("BENCH_MODEL_URL"), CHAT_AGENT)],
  ...(redisUrl ? { deltas: redisDeltas({ url: redisUrl }) } : {}),
});
answerProbes({
  rss: () => {
    const { now, peak } = residentBytes();
    return `rss ${now} ${peak}`;
  },
});
await serveUntilSigterm(worker, connection);
