/**
 * Compare providers on recorded traffic, end to end:
 *   1. "yesterday": the coach served traffic on an OpenAI model (`ai.openai()`), which claimed
 *      swaps that `update_plan` had refused;
 *   2. those runs become a dataset (`ai.eval.casesFromRuns`, written and read back as a case file);
 *   3. one refused run is forked at its last trip onto the coach on Claude (`@ai-sdk/anthropic`):
 *      the recorded conversation, tool calls included, goes on on the other provider;
 *   4. the dataset is played back on the Claude coach with the recorded tools (nothing executes),
 *      and compared with the recordings (`--baseline recorded`), with confidence intervals.
 *
 * Run it: `npx tsx --conditions=durable-agent-source examples/compare-models/compare-models.ts`
 * (starts a dev server, a scripted Chat Completions server and a scripted Anthropic server: both
 * models are scripted, and the printout says so). README.md says how to point it at real models.
 * `test/compare-models-example.test.ts` runs it in `npm test`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@temporalio/client";
import type { NativeConnection } from "@temporalio/worker";
import {
  ai,
  formatComparison,
  readCases,
  recordedBaseline,
  writeCases,
  type EvalReport,
  type AgentModel,
  type ModelReference,
  type ReportComparison,
  type RunResult,
} from "durable-agent";
import { createCoach, executions } from "./coach.js";

/** Yesterday's traffic: four swaps the library allows, seven it does not, a question. */
export const TRAFFIC = [
  "Swap squats for lunges",
  "Swap push-ups for burpees",
  "Swap planks for rows",
  "Swap rows for squats",
  "Swap squats for moonwalks",
  "Swap push-ups for cartwheels",
  "Swap planks for handstands",
  "Swap lunges for backflips",
  "Swap rows for somersaults",
  "Swap burpees for zumba",
  "Swap squats for hopscotch",
  "What do squats work?",
];

/** The run forked onto Claude: a swap the tool refused, which the OpenAI model claimed anyway. */
export const FORKED_INPUT = "Swap squats for moonwalks";

/** What is compared: a reply that claims a change no `update_plan` call made fails. */
export const scorers = [ai.eval.changeClaimedWithoutToolCall({ tools: ["update_plan"] })];

/** What the comparison needs: a Temporal client and a worker connection, and the two models. */
export interface CompareOptions {
  client: Client;
  connection: NativeConnection;
  /** The model the runs were recorded on: `ai.openai(...)`. */
  recordedModel: ModelReference;
  /** The model to compare: an AI SDK model, e.g. `ai.model(anthropic("claude-sonnet-4-5"))`. */
  candidateModel: AgentModel;
  /** A prebuilt workflow bundle for the workers (tests pass the suite's). */
  workflowBundle?: { codePath: string };
  /** The recorded agent's name (unique per run of the example, so its visibility query finds only its runs). Default "coach". */
  name?: string;
  /** Folder of the case file; default a temporary one. */
  dir?: string;
  /** The models are scripted servers (as in `npm test` and the example's own run): the printout says so. Default false. */
  scripted?: boolean;
}

/** What the comparison found. */
export interface CompareResult {
  /** The models were scripted (`CompareOptions.scripted`). */
  scripted: boolean;
  casesFile: string;
  cases: number;
  /** The recorded OpenAI run that was forked, and the fork's result on Claude. */
  fork: { from: RunResult; result: RunResult; toolExecutions: number };
  /** The scorers applied to the recordings. */
  baseline: EvalReport;
  /** The dataset played back on Claude with the recorded tools. */
  playback: EvalReport;
  /** Real tool executions during the playback (0: every call was answered from the recordings). */
  playbackToolExecutions: number;
  comparison: ReportComparison;
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

const toolExecutions = () => executions.get_plan + executions.update_plan;

export async function compareModels(options: CompareOptions): Promise<CompareResult> {
  const { client, connection, workflowBundle } = options;
  const name = options.name ?? "coach";
  const openaiCoach = createCoach({ name, model: options.recordedModel });
  const claudeCoach = createCoach({ name: `${name}-claude`, model: options.candidateModel });
  const worker = (agent: ReturnType<typeof createCoach>, taskQueue: string) =>
    ai.worker({
      agents: [agent],
      connection,
      taskQueue,
      searchAttributes: true,
      ...(workflowBundle ? { workflowBundle } : {}),
    });

  // 1. Yesterday: the coach on OpenAI.
  const openaiQueue = `${name}-openai`;
  const yesterday = await worker(openaiCoach, openaiQueue);
  const runs = await yesterday.runUntil(
    Promise.all(TRAFFIC.map((input) => openaiCoach.run(input, { client, taskQueue: openaiQueue }))),
  );

  // 2. The dataset: every run of the coach, as a case file.
  const query = `DurableAgentName = "${name}"`;
  await waitForRuns(client, query, TRAFFIC.length);
  const casesFile = join(options.dir ?? mkdtempSync(join(tmpdir(), "compare-models-")), "cases.jsonl");
  await writeCases(casesFile, await ai.eval.casesFromRuns({ query, client }));
  const cases = await readCases(casesFile);

  const claudeQueue = `${name}-claude`;
  const candidate = await worker(claudeCoach, claudeQueue);
  return candidate.runUntil(async () => {
    // 3. Fork the refused swap at its last trip (the answer after the refusal) onto Claude.
    const from = runs[TRAFFIC.indexOf(FORKED_INPUT)]!;
    const before = toolExecutions();
    const handle = await ai.fork(from.workflowId, {
      atTrip: from.trips,
      agent: claudeCoach.name,
      client,
      taskQueue: claudeQueue,
    });
    const forked = await handle.result();
    const fork = { from, result: forked, toolExecutions: toolExecutions() - before };

    // 4. Play the dataset back on Claude with the recorded tools; compare with the recordings.
    const executedBefore = toolExecutions();
    const playback = await claudeCoach.eval({ cases, scorers, tools: "recorded", client, taskQueue: claudeQueue });
    const playbackToolExecutions = toolExecutions() - executedBefore;
    const baseline = await recordedBaseline(cases, scorers, { agent: name });
    return {
      scripted: options.scripted === true,
      casesFile,
      cases: cases.length,
      fork,
      baseline,
      playback,
      playbackToolExecutions,
      comparison: playback.compareWith(baseline),
    };
  });
}

/** The verdict line: does the other model do better, per scorer, significantly? */
export function verdict(comparison: ReportComparison): string {
  const better = comparison.scorers.filter((s) => s.verdict === "better").map((s) => s.scorer);
  const worse = comparison.scorers.filter((s) => s.verdict === "worse").map((s) => s.scorer);
  if (worse.length)
    return `Claude does WORSE on ${worse.join(", ")}${better.length ? ` (better on ${better.join(", ")})` : ""}`;
  if (better.length) return `Claude does better on ${better.join(", ")}, significantly, and no worse elsewhere`;
  return "No significant difference between the models";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { createAnthropic } = await import("@ai-sdk/anthropic");
  const { startDevServer, startScriptedAnthropic, startScriptedModel } = await import("durable-agent/testing");
  const { claudeAnswers, yesterdaysOpenAI } = await import("./coach.js");
  const server = await startDevServer();
  const openai = await startScriptedModel(yesterdaysOpenAI);
  const anthropic = await startScriptedAnthropic(claudeAnswers);
  const { NativeConnection } = await import("@temporalio/worker");
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const result = await compareModels({
      client: server.env.client,
      connection,
      recordedModel: ai.openai("gpt-4o-mini", { baseURL: openai.baseURL }),
      candidateModel: ai.model(
        createAnthropic({ baseURL: anthropic.baseURL, apiKey: "sk-ant-scripted" })("claude-sonnet-4-5"),
      ),
      scripted: true,
    });
    console.log(printout(result));
  } finally {
    await connection.close();
    await anthropic.close();
    await openai.close();
    await server.stop();
  }
}

/** What the example prints. */
export function printout(result: CompareResult): string {
  const { fork, playback } = result;
  const matched = playback.runs.reduce((sum, run) => sum + (run.replay?.matched ?? 0), 0);
  const unmatched = playback.runs.reduce((sum, run) => sum + (run.replay?.unmatched ?? 0), 0);
  const scripted = result.scripted ? "scripted " : "";
  return [
    ...(result.scripted
      ? [
          "Both models are SCRIPTED (servers on loopback that answer as coach.ts writes them): the figures show the " +
            "pipeline at work, not how the real models compare.",
        ]
      : []),
    `Dataset: ${result.cases} recorded ${scripted}OpenAI run(s) in ${result.casesFile}`,
    `Fork of "${fork.from.reply}" (${fork.from.workflowId}) at trip ${fork.result.forkedFrom?.atTrip} on Claude: "${fork.result.reply}" (${fork.result.trips} trips, ${fork.toolExecutions} tool executions)`,
    `Playback on Claude with recorded tools: ${matched} call(s) answered from the recordings, ${unmatched} not in them, ${result.playbackToolExecutions} executed`,
    formatComparison(result.comparison),
    `${result.scripted ? "(scripted) " : ""}${verdict(result.comparison)}`,
  ].join("\n");
}
