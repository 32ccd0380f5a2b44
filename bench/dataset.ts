/**
 * How long building a dataset of 1,000 runs takes: starts 1,000 cheap runs (one tool call, then an
 * answer) on a dev server with search attributes, then times `ai.eval.casesFromRuns({ query })`
 * (at two read concurrencies) and the `durable-agent dataset` CLI over them.
 * `npm run bench:dataset` (`-- --quick` for 100 runs). Figures on a shared machine are noisy.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { round, startBench } from "./lib.js";

const bench = await startBench();
const runs = bench.quick ? 100 : 1000;
const model = await startScriptedModel(({ body }) =>
  body.messages.at(-1)?.role === "tool"
    ? "Done."
    : { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
);
const name = `dataset-${randomUUID().slice(0, 8)}`;
const agent = ai.agent({
  name,
  model: ai.openai("gpt-test", { baseURL: model.baseURL }),
  tools: [
    ai.tool({
      name: "update_plan",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async ({ to }) => ({ ok: true, to }),
    }),
  ],
});
const taskQueue = `bench-${randomUUID()}`;
const worker = await ai.worker({
  agents: [agent],
  connection: bench.connection,
  taskQueue,
  searchAttributes: true,
  workerOptions: { maxConcurrentWorkflowTaskExecutions: 100 },
});

try {
  const startedRuns = Date.now();
  const limit = pLimit(50);
  await worker.runUntil(
    Promise.all(
      Array.from({ length: runs }, (_, i) =>
        limit(() => agent.run(`Swap squats for lunges #${i}`, { client: bench.client, taskQueue })),
      ),
    ),
  );
  const runMs = Date.now() - startedRuns;
  const query = `DurableAgentName = "${name}"`;
  while ((await bench.client.workflow.count(`${query} AND ExecutionStatus = "Completed"`)).count < runs)
    await new Promise((resolve) => setTimeout(resolve, 200)); // visibility catches up (listed as started before completed)

  const timed = async (concurrency: number) => {
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    const cases = await ai.eval.casesFromRuns({ query, client: bench.client, concurrency });
    return {
      concurrency,
      cases: cases.length,
      ms: Date.now() - started,
      heapMb: round((process.memoryUsage().heapUsed - heapBefore) / 1e6),
    };
  };
  const api = [await timed(8), await timed(32)];

  const out = join(mkdtempSync(join(tmpdir(), "bench-dataset-")), "cases.jsonl");
  const startedCli = Date.now();
  const exit = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=durable-agent-source",
        "src/cli/index.ts",
        "dataset",
        "--out",
        out,
        "--query",
        query,
      ],
      {
        env: { ...process.env, TEMPORAL_ADDRESS: bench.server.address },
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    child.on("error", reject);
    child.on("close", resolve);
  });
  const cliMs = Date.now() - startedCli;
  const lines = readFileSync(out, "utf8").trim().split("\n").length;
  console.log(
    JSON.stringify(
      {
        runs,
        startRunsMs: runMs,
        casesFromRuns: api.map((a) => ({ ...a, msPerRun: round(a.ms / runs, 2) })),
        cli: { exit, cases: lines, ms: cliMs, note: "includes the CLI's start (tsx) and writing the file" },
        caseFileBytes: readFileSync(out).length,
      },
      null,
      2,
    ),
  );
} finally {
  await model.close();
  await bench.connection.close();
  await bench.server.stop();
}
