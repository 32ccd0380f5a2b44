/**
 * Reading a finished run back from Temporal: its start arguments (from the first run of its
 * continue-as-new chain) and its result, or, for a session, each message's result. Payloads are
 * decoded with the client's data converter, so histories encrypted by the worker's codec read the same.
 */
import type { Client } from "@temporalio/client";
import type proto from "@temporalio/proto";
import { completeResult } from "../run-reads/index.js";
import { loadPayloadDecoding, loadTemporalProto } from "../run-reads/index.js";
import { SESSION_WORKFLOW_NAME, WORKFLOW_NAME } from "../core/constants.js";
import type { RunResult } from "../core/types.js";
import type { AgentRunArgs, AgentRunResult, AgentSessionArgs } from "../workflows/definitions.js";
import { DatasetError } from "./errors.js";
import { defined } from "../core/defined.js";

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** A finished run as it was recorded. */
export type RecordedRun =
  | { kind: "run"; workflowId: string; args: AgentRunArgs; result: RunResult }
  | { kind: "session"; workflowId: string; args: AgentSessionArgs; results: RunResult[] };

/** One page of a run's history. */
async function historyPage(
  client: Client,
  workflowId: string,
  runId: string | undefined,
  options: { pageSize?: number; closeEvent?: boolean; nextPageToken?: Uint8Array } = {},
) {
  const { HistoryEventFilterType } = (await loadTemporalProto()).temporal.api.enums.v1;
  return client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, ...(runId ? { runId } : {}) },
    ...(options.pageSize ? { maximumPageSize: options.pageSize } : {}),
    ...(options.closeEvent
      ? { historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT }
      : {}),
    ...defined({ nextPageToken: options.nextPageToken }),
  });
}

/** The run's first event (its start, with its input). */
export async function firstEvent(client: Client, workflowId: string, runId: string | undefined): Promise<HistoryEvent> {
  const event = (await historyPage(client, workflowId, runId, { pageSize: 1 })).history?.events?.[0];
  if (!event?.workflowExecutionStartedEventAttributes)
    throw new DatasetError(workflowId, "its history has no start event");
  return event;
}

async function decode<T>(
  client: Client,
  payloads: proto.temporal.api.common.v1.IPayload[] | null | undefined,
): Promise<T[]> {
  const { decodeArrayFromPayloads } = await loadPayloadDecoding();
  return (await decodeArrayFromPayloads(client.options.loadedDataConverter, payloads ?? [])) as T[];
}

/** The run's start arguments: from the first run of its continue-as-new chain (later runs carry `resume` instead). */
async function startArgs<T>(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<{ type: string; args: T; firstRunId: string }> {
  const last = await firstEvent(client, workflowId, runId);
  const started = last.workflowExecutionStartedEventAttributes!;
  const firstRunId = started.firstExecutionRunId ?? runId ?? "";
  const first =
    started.continuedExecutionRunId && firstRunId
      ? (await firstEvent(client, workflowId, firstRunId)).workflowExecutionStartedEventAttributes!
      : started;
  const [args] = await decode<T>(client, first.input?.payloads);
  return { type: started.workflowType?.name ?? "", args: args as T, firstRunId };
}

/** Every event of a run, page by page. */
export async function* historyEvents(client: Client, workflowId: string, runId: string): AsyncGenerator<HistoryEvent> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await historyPage(client, workflowId, runId, { nextPageToken });
    yield* page.history?.events ?? [];
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/** The run ids of a chain that ends in `lastRunId`, first to last. */
async function chain(client: Client, workflowId: string, firstRunId: string): Promise<string[]> {
  const ids = [firstRunId];
  for (;;) {
    const page = await historyPage(client, workflowId, ids.at(-1), { closeEvent: true });
    const next = page.history?.events?.[0]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (!next) return ids;
    ids.push(next);
  }
}

/** The message results one run of a session recorded (its completed `send` updates), in order. */
export async function sessionRunResults(client: Client, workflowId: string, runId: string): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for await (const event of historyEvents(client, workflowId, runId)) {
    const success = event.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success;
    if (!success) continue;
    const [result] = await decode<RunResult>(client, success.payloads);
    if (result && typeof result === "object" && Array.isArray((result as RunResult).messages)) results.push(result);
  }
  return results;
}

/** A session's message results, in order, across its continue-as-new chain. */
async function sessionResults(client: Client, workflowId: string, firstRunId: string): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const runId of await chain(client, workflowId, firstRunId))
    results.push(...(await sessionRunResults(client, workflowId, runId)));
  return results;
}

/**
 * Reads a finished run (the latest of its chain, or `runId`); throws `DatasetError` when it is not a
 * finished durable-agent run. `listedCompleted`: visibility listed it as completed (no status check).
 */
export async function readRecordedRun(
  client: Client,
  workflowId: string,
  runId?: string,
  listedCompleted = false,
): Promise<RecordedRun> {
  if (!listedCompleted) {
    const { status } = await client.workflow.getHandle(workflowId, runId).describe(); // asking a running workflow for its close event would wait
    if (status.name === "RUNNING")
      throw new DatasetError(workflowId, "it has not finished (casesFromRuns reads finished runs)");
  }
  const close = (await historyPage(client, workflowId, runId, { closeEvent: true })).history?.events?.[0];
  const completed = close?.workflowExecutionCompletedEventAttributes;
  if (!completed) {
    const { EventType } = (await loadTemporalProto()).temporal.api.enums.v1;
    throw new DatasetError(workflowId, `it did not complete (its last event is ${EventType[close?.eventType ?? 0]})`);
  }
  const { type, args, firstRunId } = await startArgs<AgentRunArgs & AgentSessionArgs>(client, workflowId, runId);
  if (type === SESSION_WORKFLOW_NAME)
    return { kind: "session", workflowId, args, results: await sessionResults(client, workflowId, firstRunId) };
  if (type !== WORKFLOW_NAME) throw new DatasetError(workflowId, `it is a ${type} workflow, not a durable-agent run`);
  const [result] = await decode<AgentRunResult>(client, completed.result?.payloads);
  if (!result) throw new DatasetError(workflowId, "its result is empty");
  return { kind: "run", workflowId, args, result: await completeResult(client, result) };
}
