/**
 * `agent.eval()`: every case x trial is a real durable run (a workflow on Temporal, through
 * `agent.start`), scored by every scorer; the result is an `EvalReport`.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import type { Duration } from "@temporalio/common";
import pLimit from "p-limit";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { EVAL_WORKFLOW_ID_PREFIX } from "../core/constants.js";
import type { RunResult } from "../core/types.js";
import { buildReport, trialOutcome } from "./build-report.js";
import { caseInputText, caseMetadata, type EvalCase } from "../datasets/eval-case.js";
import { approvalDecisionsOf, evalRecordOf, observeToolCalls } from "./eval-record.js";
import { durationMs, durationProblem } from "../duration.js";
import { EvalOptionsError } from "../errors.js";
import { EvalTimeoutError } from "./errors.js";
import { EvalReport } from "./report.js";
import type { EvalRow, EvalRun, TrialOutcome } from "./report-schema.js";
import { errorInfo, runScorer, scorerName, type Scorer } from "./scorer.js";
import { startRun } from "../client/start-run.js";
import type { UnmatchedToolCalls } from "../core/playback.js";
import { playbackCounts, runInputOf, validatePlayback } from "./playback-cases.js";
import { decideApprovals, validateApprovals, type EvalApprovalPolicy } from "./eval-approvals.js";
import { defined } from "../core/defined.js";
import { loadCaseMemory, validateCaseMemory, type CaseMemoryScope } from "./case-memory.js";

/** What an eval runs: an agent definition (an `Agent` is one), started as durable runs by `startRun`. */
export interface EvaluatedAgent extends AgentDefinition {
  /** The agent's definition fingerprint (`agent.version`), in the report. */
  readonly version: string;
}

/** Options of `agent.eval()`. */
export interface EvalOptions<C extends EvalCase = EvalCase> {
  /** The cases; names must be unique. */
  cases: readonly C[];
  /** The scorers; names must be unique. Each gets the same record for a case and trial. */
  scorers: readonly Scorer<C>[];
  /** Runs per case, for pass@1, pass^k and flakiness. Default 1. */
  trials?: number;
  /** Runs in flight at once. Default 4. */
  concurrency?: number;
  /** The Temporal client; default one connected from `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE`. */
  client?: Client;
  /** The task queue the agent's worker polls; default `TEMPORAL_TASK_QUEUE`, else `durable-agent`. */
  taskQueue?: string;
  /**
   * How long a run may take before it is terminated and counted as an infrastructure error, e.g.
   * "10 minutes" or a number of milliseconds. Default: no limit.
   */
  timeout?: Duration;
  /** Called when every trial of a case has finished (the CLI prints a line per call). */
  onCaseFinished?: (progress: EvalProgress) => void;
  /**
   * `"recorded"`: play back each case's recorded tool calls (cases from `casesFromRuns` or a case
   * file): a call with the same tool name and an equal input is answered with the recorded output
   * and status, without executing the tool; backstops' `run` is not called. Default `"live"`.
   */
  tools?: "live" | "recorded";
  /** With recorded tools, a call the recording does not hold: `"refuse"` it (default), `"execute"` the real tool, or `"fail"` the run. */
  unmatchedToolCalls?: UnmatchedToolCalls;
  /**
   * Who decides the tool calls that wait for approval (`needsApproval`): `"approve"` or `"reject"`
   * each one as soon as it waits, or a function of the call (`{ toolName, input, callId }`) that
   * returns either. Decisions are recorded with `by: "eval"`. A function that throws or returns
   * anything else ends that run as an infrastructure error. Default: none; calls wait for a person
   * (`handle.approve`) or their `approvalTimeout`.
   */
  approvals?: EvalApprovalPolicy;
}

/** A case that finished all its trials. */
export interface EvalProgress {
  case: string;
  /** Per trial, in order. */
  outcomes: TrialOutcome[];
  /** Cases finished so far, this one included. */
  finished: number;
  total: number;
  /** Wall time of the case's slowest trial. */
  durationMs: number;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new EvalOptionsError(field, `must be a positive integer (got ${value})`);
  return value;
}

function validate<C extends EvalCase>(options: EvalOptions<C>): { inputs: string[]; names: string[] } {
  if (!Array.isArray(options.cases) || options.cases.length === 0)
    throw new EvalOptionsError("cases", "must be a non-empty array of { name, input }");
  if (!Array.isArray(options.scorers) || options.scorers.length === 0)
    throw new EvalOptionsError("scorers", "must be a non-empty array of scorers");
  const seenCases = new Set<string>();
  const inputs = options.cases.map((evalCase, i) => {
    if (typeof evalCase?.name !== "string" || evalCase.name.trim() === "")
      throw new EvalOptionsError(`cases[${i}].name`, "must be a non-empty string");
    if (seenCases.has(evalCase.name))
      throw new EvalOptionsError(
        `cases[${i}].name`,
        `"${evalCase.name}" is used by two cases; reports key on case names`,
      );
    seenCases.add(evalCase.name);
    try {
      return caseInputText(evalCase.input);
    } catch (error) {
      throw new EvalOptionsError(`cases[${i}].input`, (error as Error).message);
    }
  });
  const names = options.scorers.map((scorer, i) => {
    const valid =
      typeof scorer === "function" ||
      (typeof scorer === "object" && scorer !== null && typeof scorer.score === "function");
    if (!valid)
      throw new EvalOptionsError(`scorers[${i}]`, "must be a function (record) => result, or { name, score }");
    const name = scorerName(scorer as Scorer<never>);
    if (!name)
      throw new EvalOptionsError(
        `scorers[${i}]`,
        "has no name; use a named function, defineScorer(name, fn) or { name, score }",
      );
    return name;
  });
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate !== undefined)
    throw new EvalOptionsError("scorers", `two scorers are named "${duplicate}"; pass \`name\` to tell them apart`);
  return { inputs, names };
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 48) || "case"
  );
}

/** A case's run: its result, unless the eval ends it first (past `timeout`, or a failed approval decision), terminating it. */
async function runCase(
  agent: EvaluatedAgent,
  evalCase: EvalCase,
  workflowId: string,
  options: Pick<EvalOptions, "client" | "taskQueue" | "timeout" | "tools" | "unmatchedToolCalls" | "approvals">,
  user: string | undefined,
): Promise<RunResult> {
  const { input, context, replay } = runInputOf(evalCase, options);
  const handle = await startRun(
    agent,
    input,
    { client: options.client, taskQueue: options.taskQueue, workflowId, ...defined({ context, user }) },
    replay ? { replay } : {},
  );
  const timeoutMs = durationMs(options.timeout, true);
  let endedBy: string | undefined; // why the eval terminates the run
  let timer: NodeJS.Timeout | undefined;
  const expired =
    timeoutMs === undefined
      ? []
      : [
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new EvalTimeoutError(workflowId, timeoutMs)), timeoutMs);
          }).catch((error: unknown) => {
            endedBy = `eval timeout of ${timeoutMs} ms`;
            throw error;
          }),
        ];
  const approving =
    options.approvals === undefined
      ? undefined
      : decideApprovals(handle, options.approvals).then(
          () => handle.result(),
          (error: unknown) => {
            endedBy = `an approval decision of the eval failed: ${(error as Error).message}`;
            throw error;
          },
        );
  try {
    return await Promise.race([handle.result(), ...expired, ...(approving ? [approving] : [])]);
  } catch (error) {
    if (endedBy !== undefined) await handle.workflow.terminate(endedBy).catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    await approving?.catch(() => undefined); // the approvals' stream ends with the run: nothing of it outlives the case
  }
}

/** Runs the agent on every case `trials` times and scores every run. */
export async function runEval<C extends EvalCase>(agent: EvaluatedAgent, options: EvalOptions<C>): Promise<EvalReport> {
  const { inputs, names } = validate(options);
  validatePlayback(options);
  validateApprovals(options.approvals);
  validateCaseMemory(agent, options.cases, options.tools);
  const trials = positiveInteger("trials", options.trials, 1);
  const concurrency = positiveInteger("concurrency", options.concurrency, 4);
  if (options.timeout !== undefined && durationMs(options.timeout, true) === undefined)
    throw new EvalOptionsError("timeout", durationProblem(options.timeout, true));
  const limit = pLimit(concurrency);
  const startedAt = new Date();
  const pending = options.cases.map(() => trials);
  let finished = 0;
  const outcomes: Array<Array<{ run: EvalRun; rows: EvalRow[] }>> = options.cases.map(() => []);

  async function trial(caseIndex: number, trialNumber: number): Promise<void> {
    const evalCase = options.cases[caseIndex]!;
    const workflowId = `${EVAL_WORKFLOW_ID_PREFIX}${agent.name}-${slug(evalCase.name)}-${trialNumber}-${randomUUID().slice(0, 8)}`;
    const started = Date.now();
    const base = { case: evalCase.name, trial: trialNumber };
    let run: EvalRun;
    let rows: EvalRow[];
    let memory: CaseMemoryScope | undefined; // the case's memory, in a scope of this run's own
    try {
      if (evalCase.memory && options.tools !== "recorded")
        memory = await loadCaseMemory(agent.options.memory!, evalCase.memory, workflowId);
      const result = await runCase(agent, evalCase, workflowId, options, memory?.user);
      run = {
        ...base,
        status: "completed",
        workflowId,
        runId: result.runId,
        durationMs: Date.now() - started,
        reply: result.reply,
        stopReason: result.stopReason,
        trips: result.trips,
        toolCalls: observeToolCalls(result.toolCalls),
        ...defined({ usage: result.usage }),
        ...(options.tools === "recorded" ? { replay: playbackCounts(result) } : {}),
        ...runVersionAndApprovals(result),
      };
      const record = evalRecordOf(evalCase, inputs[caseIndex]!, trialNumber, result);
      rows = await Promise.all(
        options.scorers.map(async (scorer, i): Promise<EvalRow> => {
          const outcome = await runScorer(scorer, record);
          const row: EvalRow = { ...base, scorer: names[i]!, ...outcome };
          if (row.status === "fail") row.evidence = { toolCalls: run.toolCalls, ...row.evidence };
          return row;
        }),
      );
      if (rows.some((row) => row.status === "fail")) run.messages = result.messages;
    } catch (error) {
      const info = errorInfo(error);
      run = {
        ...base,
        status: "infrastructure-error",
        workflowId,
        durationMs: Date.now() - started,
        toolCalls: [],
        error: info,
      };
      rows = names.map((scorer) => ({ ...base, scorer, status: "infrastructure-error", error: info }));
    } finally {
      await memory?.forget().catch((error: unknown) => {
        // What is left holds only eval data, under an eval user id: say how to delete it.
        console.warn(
          `durable-agent eval: the memory of case "${evalCase.name}" (user ${memory!.user}) was not deleted: ` +
            `${(error as Error).message}. Delete it with: durable-agent memory forget --user ${memory!.user}`,
        );
      });
    }
    outcomes[caseIndex]!.push({ run, rows });
    if (--pending[caseIndex]! === 0) {
      finished++;
      const done = outcomes[caseIndex]!.sort((a, b) => a.run.trial - b.run.trial);
      options.onCaseFinished?.({
        case: evalCase.name,
        outcomes: done.map((o) => trialOutcome(o.rows)),
        finished,
        total: options.cases.length,
        durationMs: Math.max(...done.map((o) => o.run.durationMs)),
      });
    }
  }

  await Promise.all(
    options.cases.flatMap((_, caseIndex) =>
      Array.from({ length: trials }, (_, t) => limit(() => trial(caseIndex, t + 1))),
    ),
  );
  const ordered = outcomes.map((list) => list.sort((a, b) => a.run.trial - b.run.trial));
  return new EvalReport(
    buildReport({
      agent: agent.name,
      agentVersion: agent.version,
      startedAt,
      finishedAt: new Date(),
      trials,
      cases: options.cases.map((c, i) => ({ name: c.name, input: inputs[i]!, metadata: jsonSafe(caseMetadata(c)) })),
      scorers: names,
      runs: ordered.flatMap((list) => list.map((o) => o.run)),
      rows: ordered.flatMap((list) => list.flatMap((o) => o.rows)),
    }),
  );
}

/** Metadata as it will read back from JSON (functions and undefined dropped). */
function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The run's agent version and approval decisions, for its line of the report (absent when there are none). */
function runVersionAndApprovals(result: RunResult): Pick<EvalRun, "agentVersion" | "approvals"> {
  const approvals = approvalDecisionsOf(result.trace);
  return { ...defined({ agentVersion: result.agentVersion }), ...(approvals.length ? { approvals } : {}) };
}
