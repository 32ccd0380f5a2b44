/**
 * The whole loop of recorded runs as eval data, end to end:
 *   1. the coach serves "production" traffic on a model that offers instead of acting;
 *   2. a dataset is made of the runs where `requiredToolCalled` failed (scored on the recordings);
 *   3. `actWhenAsked` is turned on;
 *   4. the dataset is replayed with recorded tools (the recorded `get_plan` lookups are answered
 *      from the recording; `update_plan`, which the recordings never reached, runs for real);
 *   5. CI gates on "no regressions, and the fixed cases significant".
 *
 * Run it: `npx tsx examples/recorded-runs/recorded-loop.ts` (starts a dev server and a scripted
 * model; exit code 0 when the gate passes). `test/recorded-runs-example.test.ts` runs it in `npm test`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@temporalio/client";
import type { NativeConnection } from "@temporalio/worker";
import {
  ai,
  compareReports,
  readCases,
  recordedBaseline,
  writeCases,
  type EvalReport,
  type ModelReference,
  type ReportComparison,
} from "../../src/index.js"; // in your project: from "durable-agent"
import { createCoach, executions } from "./coach.js";
import { defined } from "../../src/core/defined.js";

/** The traffic the coach served: six swaps it only offered, changes it made, one it could not, a question. */
export const TRAFFIC = [
  "Swap squats for lunges",
  "Swap push-ups for burpees",
  "Swap planks for rows",
  "Swap lunges for squats",
  "Swap burpees for planks",
  "Swap rows for push-ups",
  "Change squats to lunges",
  "Change planks to rows",
  "Change squats to moonwalks",
  "What do squats work?",
];

export const requiredToolCalled = ai.eval.requiredToolCalled({
  tools: ["update_plan"],
  intents: [/\b(swap|change)\b/i],
});

/** What the loop needs: a Temporal client and a worker connection, the model, where to write the dataset. */
export interface LoopOptions {
  client: Client;
  connection: NativeConnection;
  model: ModelReference;
  /** A prebuilt workflow bundle for the workers (tests pass the suite's). */
  workflowBundle?: { codePath: string };
  /** The agent's name (unique per run of the loop, so its visibility query finds only its runs). Default "coach". */
  name?: string;
  /** Folder of the dataset file; default a temporary one. */
  dir?: string;
}

/** What the loop found: the dataset, the reports, the gate, and what replay cost against a live eval. */
export interface LoopResult {
  datasetFile: string;
  dataset: number;
  /** The scorers applied to the recordings (`--baseline recorded`). */
  baseline: EvalReport;
  /** The replay with recorded tools, actWhenAsked on. */
  replay: EvalReport;
  /** The same cases live (every tool executed), actWhenAsked on. */
  live: EvalReport;
  comparison: ReportComparison;
  gate: { passed: boolean; problems: string[] };
  cost: { replay: { toolExecutions: number; wallMs: number }; live: { toolExecutions: number; wallMs: number } };
}

/**
 * Visibility is eventually consistent, and a run is listed as started before it is listed as
 * completed: wait until it counts the runs as completed, which is what the dataset reads.
 */
async function waitForRuns(client: Client, query: string, count: number): Promise<void> {
  const completed = `(${query}) AND ExecutionStatus = "Completed"`;
  for (const deadline = Date.now() + 120_000; (await client.workflow.count(completed)).count < count;) {
    if (Date.now() > deadline)
      throw new Error(`Temporal's visibility never listed ${count} completed run(s) for ${query}`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // no event to await: poll the index
  }
}

/** CI's gate: no case that passed in the baseline fails now, and the scorer's pass rate is significantly better. */
export function gate(
  comparison: ReportComparison,
  scorer = "requiredToolCalled",
): { passed: boolean; problems: string[] } {
  const problems: string[] = [];
  if (comparison.regressions.length > 0)
    problems.push(
      `${comparison.regressions.length} regression(s): ${comparison.regressions.map((r) => r.case).join(", ")}`,
    );
  const change = comparison.scorers.find((s) => s.scorer === scorer);
  if (change?.verdict !== "better")
    problems.push(
      `${scorer} is not significantly better (${change?.verdict ?? "not compared"}, p = ${change?.pValue?.toFixed(3) ?? "–"})`,
    );
  return { passed: problems.length === 0, problems };
}

export async function recordedRunsLoop(options: LoopOptions): Promise<LoopResult> {
  const { client, connection, model, workflowBundle } = options;
  const name = options.name ?? "coach";
  const worker = async (agent: ReturnType<typeof createCoach>, queue: string) =>
    ai.worker({
      agents: [agent],
      connection,
      taskQueue: queue,
      searchAttributes: true,
      ...defined({ workflowBundle }),
    });

  // 1. Production: the coach without actWhenAsked.
  const before = createCoach({ actWhenAsked: false, model, name });
  const production = await worker(before, `${name}-production`);
  await production.runUntil(
    Promise.all(TRAFFIC.map((input) => before.run(input, { client, taskQueue: `${name}-production` }))),
  );

  // 2. The dataset: every run of the coach, scored as recorded; the ones where requiredToolCalled failed.
  const query = `DurableAgentName = "${name}"`;
  await waitForRuns(client, query, TRAFFIC.length);
  const recorded = await ai.eval.casesFromRuns({ query, client });
  const scored = await recordedBaseline(recorded, [requiredToolCalled], { agent: name });
  const failed = new Set(scored.rows.filter((row) => row.status === "fail").map((row) => row.case));
  const datasetFile = join(options.dir ?? mkdtempSync(join(tmpdir(), "recorded-runs-")), "cases.jsonl");
  await writeCases(
    datasetFile,
    recorded.filter((c) => failed.has(c.name)),
  );

  // 3-4. actWhenAsked on; replay the dataset with recorded tools, then (to compare the cost) live.
  const cases = await readCases(datasetFile);
  const baseline = await recordedBaseline(cases, [requiredToolCalled], { agent: name });
  const after = createCoach({ actWhenAsked: true, model, name });
  const fixed = await worker(after, `${name}-fixed`);
  const measure = async (tools: "recorded" | "live") => {
    const executed = executions.get_plan + executions.update_plan;
    const started = Date.now();
    const report = await after.eval({
      cases,
      scorers: [requiredToolCalled],
      tools,
      unmatchedToolCalls: "execute",
      client,
      taskQueue: `${name}-fixed`,
    });
    return {
      report,
      cost: { toolExecutions: executions.get_plan + executions.update_plan - executed, wallMs: Date.now() - started },
    };
  };
  const { replay, live } = await fixed.runUntil(async () => {
    await measure("recorded"); // warm the worker up, so neither measurement pays for its first tasks
    const replay = await measure("recorded");
    const live = await measure("live");
    return { replay, live };
  });

  // 5. The gate.
  const comparison = compareReports(baseline, replay.report);
  return {
    datasetFile,
    dataset: cases.length,
    baseline,
    replay: replay.report,
    live: live.report,
    comparison,
    gate: gate(comparison),
    cost: { replay: replay.cost, live: live.cost },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { startDevServer, startScriptedModel } = await import("../../src/testing/index.js");
  const { formatComparison } = await import("../../src/index.js");
  const { offeringCoachModel } = await import("./coach.js");
  const server = await startDevServer();
  const scripted = await startScriptedModel(offeringCoachModel);
  const { NativeConnection } = await import("@temporalio/worker");
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const result = await recordedRunsLoop({
      client: server.env.client,
      connection,
      model: ai.openai("gpt-test", { baseURL: scripted.baseURL }),
    });
    console.log(`Dataset: ${result.dataset} case(s) where requiredToolCalled failed, in ${result.datasetFile}`);
    console.log(formatComparison(result.comparison));
    console.log(
      `Replay: ${result.cost.replay.toolExecutions} tool executions, ${result.cost.replay.wallMs} ms; live: ${result.cost.live.toolExecutions} tool executions, ${result.cost.live.wallMs} ms`,
    );
    console.log(
      result.gate.passed
        ? "GATE PASSED: no regressions, the fixed cases significant"
        : `GATE FAILED: ${result.gate.problems.join("; ")}`,
    );
    process.exitCode = result.gate.passed ? 0 : 1;
  } finally {
    await connection.close();
    await scripted.close();
    await server.stop();
  }
}
