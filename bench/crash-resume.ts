/**
 * How long a worker crash freezes a streamed answer: a run streams on worker A (its model call
 * stalled mid-answer), worker B is up, A is SIGKILLed, and the time from the kill to the retry's
 * `trip.retry` marker and to its first text delta is measured, against the 5 s goal (issue 41).
 * The workers are processes of `test/fixtures/crash-worker.ts` on the agents' default timeouts
 * (heartbeat 5 s) and `ai.worker`'s sticky queue timeout (1 s).
 *
 *   npx tsx --conditions=durable-agent-source bench/crash-resume.ts [--quick]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { randomUUID } from "node:crypto";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { bundleAgentWorkflows } from "../src/workflow-bundle.js";
import { percentile, round, startBench } from "./lib.js";

const GOAL_MS = 5_000;
const TEXT = "Lunges are a good swap: same muscles, kinder to the knees, and you can do them anywhere.";

const bench = await startBench();
const rounds = bench.quick ? 1 : 5;
const bundlePath = join(mkdtempSync(join(tmpdir(), "crash-resume-")), "workflow-bundle.js");
writeFileSync(bundlePath, (await bundleAgentWorkflows()).code);
const children: ChildProcess[] = [];

/** A crash worker process; resolves once it serves the task queue. */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=durable-agent-source", "test/fixtures/crash-worker.ts"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on("line", (line) => line === "WORKER_READY" && resolve());
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
  });
  return child;
}

const marker: number[] = [];
const delta: number[] = [];
try {
  for (let round_ = 0; round_ < rounds; round_++) {
    const model = await startScriptedModel([{ text: TEXT, stallAfterChunks: 4 }, TEXT], { chunkSize: 8 });
    const env = {
      TEMPORAL_ADDRESS: bench.server.address,
      TEMPORAL_TASK_QUEUE: `crash-resume-${randomUUID()}`,
      OPENAI_BASE_URL: model.baseURL,
      TOOL_LOG: join(mkdtempSync(join(tmpdir(), "crash-resume-")), "tool.log"),
      WORKFLOW_BUNDLE: bundlePath,
    };
    const first = await startWorker(env);
    const streamCoach = ai.agent({ name: "stream-crash-coach", model: ai.openai("gpt-test") });
    const stream = await streamCoach.stream("Is a lunge a good swap for squats?", {
      client: bench.client,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
    });
    let second: ChildProcess | undefined;
    let killedAt = 0;
    let markerAt = 0;
    let deltaAt = 0;
    for await (const event of stream) {
      if (event.type === "trip.retry") markerAt ||= Date.now();
      if (event.type === "text.delta" && event.attempt === 2) deltaAt ||= Date.now();
      if (event.type === "text.delta" && !second) {
        second = await startWorker(env); // a fleet: another worker is up when one dies
        first.kill("SIGKILL");
        killedAt = Date.now();
      }
    }
    second?.kill("SIGKILL");
    await model.close();
    marker.push(markerAt - killedAt);
    delta.push(deltaAt - killedAt);
    console.log(
      `round ${round_ + 1}: trip.retry ${markerAt - killedAt} ms, next delta ${deltaAt - killedAt} ms after the kill`,
    );
  }
} finally {
  for (const child of children) child.kill("SIGKILL");
  await bench.connection.close();
  await bench.server.stop();
}

const row = (name: string, values: number[]) =>
  `| ${name} | ${rounds} | ${round(percentile(values, 50))} | ${round(Math.max(...values))} | ${GOAL_MS} | ${Math.max(...values) <= GOAL_MS ? "met" : "missed"} |`;
console.log(
  [
    "",
    "| from the worker's SIGKILL to | rounds | p50 ms | max ms | goal ms | goal |",
    "|---|---|---|---|---|---|",
    row("the retry marker (`trip.retry`)", marker),
    row("the next text delta", delta),
  ].join("\n"),
);
