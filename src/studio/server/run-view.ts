/**
 * `GET /api/runs/:workflowId`: a run read from Temporal as a conversation. A completed run is read
 * from its result; a run in progress (or one that ended without a result) from its queries, which
 * a worker answers. A session is read from its messages' results across its continue-as-new runs.
 * Payloads are decoded with the client's data converter: a run encrypted with a codec this studio
 * does not have is shown as `encrypted`, with no content.
 */
import { defined } from "../../core/defined.js";
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import { loadPayloadDecoding } from "../../run-reads/index.js";
import { completeResult } from "../../run-reads/index.js";
import { readRunPart } from "../../run-reads/index.js";
import { SESSION_WORKFLOW_NAME } from "../../core/constants.js";
import type { AgentRunResult } from "../../core/paging.js";
import { SEARCH_ATTRIBUTES } from "../../core/search-attributes.js";
import type { Message, RunResult, ToolCallRecord, TraceEvent } from "../../core/types.js";
import { firstEvent, sessionRunResults } from "../../datasets/read-run.js";
import { nestedTrace } from "../../subagents/nested-trace.js";
import type { AgentRunArgs } from "../../workflows/definitions.js";
import type { ConversationItem, RunView } from "../api-types.js";
import { conversationOf, tripsOf } from "./conversation.js";
import { readLatencies } from "./latencies.js";
import { runStatusOf } from "./run-status.js";

/** How long to wait for a worker to answer the queries of a run without a result. */
const QUERY_DEADLINE_MS = 5_000;
/** The codec's encoding (src/codec): payloads the client could not decode carry it. */
const ENCRYPTED_ENCODING = "binary/encrypted";

interface Record {
  messages: Message[];
  toolCalls: ToolCallRecord[];
  trace: TraceEvent[];
  stopReason?: string;
  agentVersion?: string;
  agent?: string;
}

/** The run's start input, decoded; undefined when it is encrypted with a codec this client lacks. */
async function startInput(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<{ args?: AgentRunArgs; encrypted: boolean }> {
  const started = (await firstEvent(client, workflowId, runId)).workflowExecutionStartedEventAttributes!;
  const payloads = started.input?.payloads ?? [];
  const { decodeArrayFromPayloads } = await loadPayloadDecoding();
  try {
    const [args] = (await decodeArrayFromPayloads(client.options.loadedDataConverter, payloads)) as AgentRunArgs[];
    return { ...(args ? { args } : {}), encrypted: false };
  } catch (error) {
    const encoding = new TextDecoder().decode(payloads[0]?.metadata?.encoding ?? new Uint8Array());
    if (encoding === ENCRYPTED_ENCODING) return { encrypted: true };
    throw error;
  }
}

async function completedRecord(client: Client, workflowId: string, runId: string): Promise<Record> {
  const raw = (await client.workflow.getHandle(workflowId, runId).result()) as AgentRunResult;
  const result = await completeResult(client, raw);
  return recordOf(result);
}

function recordOf(result: RunResult): Record {
  return {
    messages: result.messages,
    toolCalls: result.toolCalls,
    trace: result.trace,
    stopReason: result.stopReason,
    ...defined({ agentVersion: result.agentVersion }),
    ...defined({ agent: result.agent }),
  };
}

/** A run without a result: its record so far, by query; or only its input when no worker answers. */
async function liveRecord(
  client: Client,
  workflowId: string,
  runId: string,
  args: AgentRunArgs | undefined,
): Promise<Record> {
  const ref = { workflowId, runId };
  try {
    return await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, async () => {
      const [messages, toolCalls, trace] = await Promise.all([
        readRunPart<Message>(client, ref, "messages", 0),
        readRunPart<ToolCallRecord>(client, ref, "toolCalls", 0),
        nestedTrace(client, workflowId),
      ]);
      return { messages, toolCalls, trace };
    });
  } catch {
    return { messages: args?.messages ?? [], toolCalls: [], trace: [] };
  }
}

function temporalUiUrl(base: string, namespace: string, workflowId: string, runId: string): string {
  return `${base.replace(/\/$/, "")}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;
}

/** The run ids of a workflow id's runs (a continue-as-new chain), oldest first, from visibility. */
async function chainRunIds(client: Client, workflowId: string): Promise<string[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` }))
    runs.push({ runId: info.runId, start: info.startTime.getTime() });
  return runs.sort((a, b) => a.start - b.start).map((run) => run.runId);
}

/** A session's messages in order across its runs: each message's result holds that message's part of the conversation. */
async function sessionItems(client: Client, workflowId: string, runIds: string[]): Promise<ConversationItem[]> {
  const items: ConversationItem[] = [];
  let index = 0;
  for (const runId of runIds) {
    const results = await sessionRunResults(client, workflowId, runId);
    const latencies = { model: new Map<number, number>(), tools: new Map<string, number>() };
    for (const result of results) {
      items.push({ type: "session-message", index: index++, status: result.stopReason });
      items.push(...conversationOf(result.workflowId, result.messages, result.toolCalls, result.trace, latencies));
    }
  }
  return items;
}

/** Reads the run (the latest of its chain unless `runId` names one) as the studio's `RunView`. */
export async function readRunView(
  client: Client,
  workflowId: string,
  options: { runId?: string; temporalUiBase: string },
): Promise<RunView> {
  const description: WorkflowExecutionDescription = await client.workflow
    .getHandle(workflowId, options.runId)
    .describe();
  const { runId } = description;
  const attributes = description.typedSearchAttributes;
  const view: RunView = {
    workflowId,
    runId,
    agent: attributes.get(SEARCH_ATTRIBUTES.agent) ?? description.type,
    status: runStatusOf(description.status.name),
    temporalUiUrl: temporalUiUrl(options.temporalUiBase, client.options.namespace, workflowId, runId),
    encrypted: false,
    items: [],
    trips: [],
  };
  const version = attributes.get(SEARCH_ATTRIBUTES.version);
  const stopReason = attributes.get(SEARCH_ATTRIBUTES.stopReason);
  if (version !== undefined) view.version = version;
  if (stopReason !== undefined) view.stopReason = stopReason;
  const input = await startInput(client, workflowId, runId);
  if (input.encrypted) return { ...view, encrypted: true };
  if (description.type === SESSION_WORKFLOW_NAME) {
    const runs = await chainRunIds(client, workflowId);
    return { ...view, session: { runs }, items: await sessionItems(client, workflowId, runs) };
  }
  const record =
    description.status.name === "COMPLETED"
      ? await completedRecord(client, workflowId, runId)
      : await liveRecord(client, workflowId, runId, input.args);
  const latencies = await readLatencies(client, workflowId, runId, record.toolCalls);
  if (record.agentVersion !== undefined) view.version = record.agentVersion;
  if (record.stopReason !== undefined) view.stopReason = record.stopReason;
  if (input.args?.agent !== undefined) view.agent = input.args.agent;
  return {
    ...view,
    items: conversationOf(workflowId, record.messages, record.toolCalls, record.trace, latencies),
    trips: tripsOf(record.trace, record.toolCalls, latencies),
  };
}
