/**
 * `ai.eval.casesFromRuns()`: finished runs (by workflow id, or by a visibility query) as eval
 * cases, one per run and one per session message. Visibility is listed page by page and runs are
 * read a few at a time, so a thousand runs never sit in memory as histories.
 */
import { Client } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import { getDefaultClient } from "../client/connection.js";
import { SESSION_WORKFLOW_NAME, WORKFLOW_NAME } from "../contract/constants.js";
import type { RecordedBackstop } from "../contract/replay.js";
import type { Message, RunResult } from "../contract/types.js";
import { EvalOptionsError } from "../eval/errors.js";
import { readRecordedRun, type RecordedRun } from "./read-run.js";
import type { RecordedCase } from "./recorded-case.js";

/** Options of `ai.eval.casesFromRuns()`. Give `workflowIds` or `query` (or both). */
export interface CasesFromRunsOptions {
  /** Runs by workflow id (the latest run of each chain); each must have finished. */
  workflowIds?: readonly string[];
  /** A visibility query, e.g. `DurableAgentName = "coach" AND DurableAgentRefusals > 0`; only completed runs are read. */
  query?: string;
  /** Only runs of this agent. */
  agent?: string;
  /** At most this many cases (a session's messages count one each). Default: all. */
  limit?: number;
  /** The Temporal client; default one connected from TEMPORAL_ADDRESS (its data converter decodes payloads unless `dataConverter` is given). */
  client?: Client;
  /** The worker's data converter (for example `ai.codec(...)`'s), to read histories whose payloads are encrypted. */
  dataConverter?: DataConverter;
  /** Runs on each case before it is returned (drop personal data, shorten inputs, ...). */
  redact?: (recordedCase: RecordedCase) => RecordedCase;
  /** Runs read at once. Default 8. */
  concurrency?: number;
  /** Called after each run is read (the CLI shows a progress line with it). */
  onProgress?: (progress: { runs: number; cases: number }) => void;
}

/** Visibility results per page. */
const PAGE_SIZE = 100;

function recordedBackstops(result: RunResult): RecordedBackstop[] {
  const ran: RecordedBackstop[] = [];
  for (const event of result.trace) {
    if (event.type !== "backstop" || event.replayed) continue;
    if (event.outcome === "prompted") ran.push({ name: event.name, ...(event.detail ? { prompt: event.detail } : {}) });
    else if (event.outcome === "ran" || event.outcome === "error") ran.push({ name: event.name });
  }
  return ran;
}

/** The input as the user sent it: their text, or the messages (with content parts). */
function inputOf(messages: Message[]): RecordedCase["input"] {
  const only = messages.length === 1 ? messages[0]! : undefined;
  return only?.role === "user" && typeof only.content === "string" ? only.content : messages;
}

function caseOf(name: string, input: RecordedCase["input"], agent: string, result: RunResult, extra: { context?: unknown; messages?: Message[] }): RecordedCase {
  return {
    name,
    input,
    ...(extra.context !== undefined ? { context: extra.context } : {}),
    ...(extra.messages ? { messages: extra.messages } : {}),
    recorded: {
      workflowId: result.workflowId,
      runId: result.runId,
      agent,
      ...(result.agentVersion !== undefined ? { agentVersion: result.agentVersion } : {}),
      reply: result.reply,
      stopReason: result.stopReason,
      trips: result.trips,
      ...(result.usage ? { usage: result.usage } : {}),
      toolCalls: result.toolCalls.map((call) => ({
        name: call.name,
        input: call.input,
        ...(call.output !== undefined ? { output: call.output } : {}),
        status: call.status,
        ...(call.reason !== undefined ? { reason: call.reason } : {}),
        ...(call.error !== undefined ? { error: call.error } : {}),
        trip: call.trip,
      })),
      backstops: recordedBackstops(result),
      messages: result.messages,
      trace: result.trace,
    },
  };
}

/** A recorded run's cases: one for a run, one per message for a session (its `messages` the conversation before it). */
export function casesOf(run: RecordedRun): RecordedCase[] {
  if (run.kind === "run") {
    const { args, result } = run;
    return [caseOf(run.workflowId, inputOf(args.messages), args.agent, result, { context: args.context })];
  }
  const before: Message[] = [];
  return run.results.map((result, i) => {
    const first = result.messages[0];
    const input = first?.role === "user" && typeof first.content === "string" ? first.content : "";
    const made = caseOf(`${run.workflowId}#${i + 1}`, input, run.args.agent, result, { context: run.args.context, messages: [...before] });
    before.push(...result.messages);
    return made;
  });
}

async function clientFor(options: CasesFromRunsOptions): Promise<Client> {
  const base = options.client ?? (await getDefaultClient());
  if (!options.dataConverter) return base;
  return new Client({ connection: base.connection, namespace: base.options.namespace, dataConverter: options.dataConverter });
}

function validate(options: CasesFromRunsOptions): void {
  const ids = options.workflowIds;
  if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || id === ""))) throw new EvalOptionsError("workflowIds", "must be an array of workflow ids");
  if (options.query !== undefined && (typeof options.query !== "string" || options.query.trim() === "")) throw new EvalOptionsError("query", "must be a non-empty visibility query");
  if (!ids?.length && options.query === undefined) throw new EvalOptionsError("workflowIds", "give workflowIds or a query to choose the runs");
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 1)) throw new EvalOptionsError("limit", `must be a positive integer (got ${options.limit})`);
  if (options.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency >= 1)) throw new EvalOptionsError("concurrency", `must be a positive integer (got ${options.concurrency})`);
}

/** The runs to read: the given workflow ids, then each completed top-level run the query lists, page by page. */
async function* runsToRead(client: Client, options: CasesFromRunsOptions): AsyncGenerator<{ workflowId: string; runId?: string; listed?: true }> {
  for (const workflowId of options.workflowIds ?? []) yield { workflowId };
  if (options.query === undefined) return;
  const query = `(${options.query}) AND ExecutionStatus = "Completed" AND WorkflowType IN ("${WORKFLOW_NAME}", "${SESSION_WORKFLOW_NAME}")`;
  for await (const info of client.workflow.list({ query, pageSize: PAGE_SIZE })) {
    if (!info.parentExecution) yield { workflowId: info.workflowId, runId: info.runId, listed: true }; // a sub-agent's run is part of its caller's case
  }
}

/** Reads finished runs as eval cases, in the order they are given or listed. */
export async function casesFromRuns(options: CasesFromRunsOptions): Promise<RecordedCase[]> {
  validate(options);
  const client = await clientFor(options);
  const limit = options.limit ?? Infinity;
  const concurrency = options.concurrency ?? 8;
  const batches: Array<Promise<RecordedCase[]>> = [];
  let runs = 0;
  let cases = 0;
  const seen = new Set<string>();
  const read = async ({ workflowId, runId, listed }: { workflowId: string; runId?: string; listed?: true }): Promise<RecordedCase[]> => {
    const run = await readRecordedRun(client, workflowId, runId, listed === true);
    if (options.agent !== undefined && run.args.agent !== options.agent) return [];
    if (run.kind === "run" && run.args.subAgent) return [];
    const made = casesOf(run).map((c) => (options.redact ? options.redact(c) : c));
    runs += 1;
    cases += made.length;
    options.onProgress?.({ runs, cases });
    return made;
  };
  const window: Array<Promise<RecordedCase[]>> = [];
  let counted = 0;
  for await (const target of runsToRead(client, options)) {
    if (seen.has(target.workflowId)) continue;
    seen.add(target.workflowId);
    const next = read(target);
    batches.push(next);
    window.push(next);
    if (window.length >= concurrency) counted += (await window.shift()!).length;
    if (counted >= limit) break;
  }
  const all = (await Promise.all(batches)).flat();
  return all.slice(0, limit);
}
