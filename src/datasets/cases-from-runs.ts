/**
 * `ai.eval.casesFromRuns()`: finished runs (by workflow id, or by a visibility query) as eval
 * cases, one per run and one per session message. Visibility is listed page by page and runs are
 * read a few at a time, so a thousand runs never sit in memory as histories.
 */
import type { Client } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import { getDefaultClient } from "../client/connection.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { SESSION_WORKFLOW_NAME, WORKFLOW_NAME } from "../core/constants.js";
import type { RecordedBackstop } from "../core/playback.js";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import type { Message, RunResult } from "../core/types.js";
import { EvalOptionsError } from "../errors.js";
import { DatasetError } from "./errors.js";
import { readRecordedRun, type RecordedRun } from "./read-run.js";
import type { RecordedCase } from "./recorded-case.js";
import { defined } from "../core/defined.js";
import { caseMemoryOf } from "./case-memory.js";

/** Options of `ai.eval.casesFromRuns()`. Give `workflowIds`, `query` or `agent` (or several). */
export interface CasesFromRunsOptions {
  /** Runs by workflow id (the latest run of each chain); each must have finished. */
  workflowIds?: readonly string[];
  /** A visibility query, e.g. `DurableAgentName = "coach" AND DurableAgentRefusals > 0`; only completed runs are read. */
  query?: string;
  /**
   * Only runs of this agent. Added to the visibility query as `DurableAgentName = "<agent>"`, so the
   * server filters and no other agent's history is read (the workers must set search attributes);
   * alone, it lists the agent's completed runs. Runs given by `workflowIds` are checked after reading.
   */
  agent?: string;
  /** At most this many cases (a session's messages count one each). Default: all. */
  limit?: number;
  /** The Temporal client; default one connected from TEMPORAL_ADDRESS (its data converter decodes payloads unless `dataConverter` is given). */
  client?: Client;
  /**
   * The worker's data converter (for example `encryptedDataConverter(parseCodecKeys(...))`, or
   * `dataConverterFromEnv()`), to read histories whose payloads are encrypted.
   */
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
/** gRPC's status for a workflow (or run) the server does not have. */
const GRPC_NOT_FOUND = 5;

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

function caseOf(
  name: string,
  input: RecordedCase["input"],
  agent: string,
  result: RunResult,
  extra: { context?: unknown; messages?: Message[] },
): RecordedCase {
  return {
    name,
    input,
    ...defined({ context: extra.context, messages: extra.messages, memory: caseMemoryOf(result.trace) }),
    recorded: {
      workflowId: result.workflowId,
      runId: result.runId,
      agent,
      ...defined({ agentVersion: result.agentVersion }),
      reply: result.reply,
      stopReason: result.stopReason,
      trips: result.trips,
      ...defined({ usage: result.usage }),
      toolCalls: result.toolCalls.map((call) => ({
        name: call.name,
        input: call.input,
        ...defined({ output: call.output }),
        status: call.status,
        ...defined({ reason: call.reason, error: call.error }),
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
    const made = caseOf(`${run.workflowId}#${i + 1}`, input, run.args.agent, result, {
      context: run.args.context,
      messages: [...before],
    });
    before.push(...result.messages);
    return made;
  });
}

async function clientFor(options: CasesFromRunsOptions): Promise<Client> {
  const base = options.client ?? (await getDefaultClient());
  if (!options.dataConverter) return base;
  const { Client } = await loadTemporalClient();
  return new Client({
    connection: base.connection,
    namespace: base.options.namespace,
    dataConverter: options.dataConverter,
  });
}

function validate(options: CasesFromRunsOptions): void {
  const ids = options.workflowIds;
  if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== "string" || id === "")))
    throw new EvalOptionsError("workflowIds", "must be an array of workflow ids");
  if (options.query !== undefined && (typeof options.query !== "string" || options.query.trim() === ""))
    throw new EvalOptionsError("query", "must be a non-empty visibility query");
  if (options.agent !== undefined && (typeof options.agent !== "string" || options.agent === ""))
    throw new EvalOptionsError("agent", "must be an agent's name");
  if (!ids?.length && options.query === undefined && options.agent === undefined)
    throw new EvalOptionsError("workflowIds", "give workflowIds, a query or an agent to choose the runs");
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 1))
    throw new EvalOptionsError("limit", `must be a positive integer (got ${options.limit})`);
  if (options.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency >= 1))
    throw new EvalOptionsError("concurrency", `must be a positive integer (got ${options.concurrency})`);
}

/** A visibility string literal: double-quoted, backslashes and quotes escaped. */
const quoted = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/**
 * The visibility query to list, if any: the user's query, narrowed to `agent` when given (so the
 * server filters by `DurableAgentName`, and no other agent's history is read); `agent` alone lists
 * that agent's runs. Only completed top-level runs of the library's workflow types are listed.
 */
function visibilityQuery(options: Pick<CasesFromRunsOptions, "query" | "agent" | "workflowIds">): string | undefined {
  const agent = options.agent !== undefined ? `${SEARCH_ATTRIBUTES.agent.name} = ${quoted(options.agent)}` : undefined;
  const listed = `ExecutionStatus = "Completed" AND WorkflowType IN ("${WORKFLOW_NAME}", "${SESSION_WORKFLOW_NAME}")`;
  if (options.query !== undefined) return [`(${options.query})`, agent, listed].filter(Boolean).join(" AND ");
  if (agent !== undefined && !options.workflowIds?.length) return `${agent} AND ${listed}`;
  return undefined;
}

/** The runs to read: the given workflow ids, then each completed top-level run the query lists, page by page. */
async function* runsToRead(
  client: Client,
  options: CasesFromRunsOptions,
): AsyncGenerator<{ workflowId: string; runId?: string; listed?: true }> {
  for (const workflowId of options.workflowIds ?? []) yield { workflowId };
  const query = visibilityQuery(options);
  if (query === undefined) return;
  for await (const info of client.workflow.list({ query, pageSize: PAGE_SIZE })) {
    if (!info.parentExecution) yield { workflowId: info.workflowId, runId: info.runId, listed: true }; // a sub-agent's run is part of its caller's case
  }
}

/** A run that is not there is a `DatasetError` naming it; other errors (Temporal unreachable, a payload that does not decode) pass as they are. */
async function readError(workflowId: string, error: unknown): Promise<unknown> {
  if (DatasetError.isInstance(error)) return error;
  const { isGrpcServiceError, WorkflowNotFoundError } = await loadTemporalClient();
  const notFound =
    error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND);
  if (!notFound) return error;
  return Object.assign(new DatasetError(workflowId, "there is no such workflow (check the id and the namespace)"), {
    cause: error,
  });
}

/** One run's read: its cases, or the error it failed with (never a rejected promise, so no failure goes unhandled). */
type Read = { cases: RecordedCase[] } | { error: unknown };

/**
 * Reads finished runs as eval cases, in the order they are given or listed, `concurrency` at a
 * time. The first run that cannot be read (in that order) is the error: no more reads start, and
 * the ones in flight are waited for before it is thrown.
 */
export async function casesFromRuns(options: CasesFromRunsOptions): Promise<RecordedCase[]> {
  validate(options);
  const client = await clientFor(options);
  const limit = options.limit ?? Infinity;
  const concurrency = options.concurrency ?? 8;
  let runs = 0;
  let cases = 0;
  let failed = false;
  const read = async ({
    workflowId,
    runId,
    listed,
  }: {
    workflowId: string;
    runId?: string;
    listed?: true;
  }): Promise<RecordedCase[]> => {
    const run = await readRecordedRun(client, workflowId, runId, listed === true);
    if (options.agent !== undefined && run.args.agent !== options.agent) return [];
    if (run.kind === "run" && run.args.subAgent) return [];
    const made = casesOf(run).map((c) => (options.redact ? options.redact(c) : c));
    runs += 1;
    cases += made.length;
    options.onProgress?.({ runs, cases });
    return made;
  };
  const reads: Array<Promise<Read>> = [];
  const inFlight = new Set<Promise<Read>>();
  const seen = new Set<string>();
  let outcomes: Read[];
  try {
    for await (const target of runsToRead(client, options)) {
      if (seen.has(target.workflowId)) continue;
      seen.add(target.workflowId);
      const next: Promise<Read> = read(target).then(
        (made) => ({ cases: made }),
        async (error: unknown) => ((failed = true), { error: await readError(target.workflowId, error) }),
      );
      reads.push(next);
      inFlight.add(next);
      void next.then(() => inFlight.delete(next));
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
      if (failed || cases >= limit) break; // enough read; or a read failed, so start no more
    }
  } finally {
    outcomes = await Promise.all(reads); // nothing is left in flight when this returns or throws (listing failed)
  }
  const failure = outcomes.find((outcome) => "error" in outcome);
  if (failure && "error" in failure) throw failure.error;
  return outcomes.flatMap((outcome) => ("cases" in outcome ? outcome.cases : [])).slice(0, limit);
}
