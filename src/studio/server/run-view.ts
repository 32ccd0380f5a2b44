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
import { fromFailure, usageOfFailure } from "../../core/typed-failures.js";
import type { RunUsage } from "../../core/usage.js";
import { SEARCH_ATTRIBUTES } from "../../core/search-attributes.js";
import type { Message, RunResult, ToolCallRecord, TraceEvent } from "../../core/types.js";
import { firstEvent, sessionRunResults } from "../../datasets/read-run.js";
import { nestedTrace } from "../../subagents/nested-trace.js";
import type { AgentRunArgs } from "../../workflows/definitions.js";
import type { ConversationItem, ForkOrigin, RunError, RunTotals, RunView, TripView } from "../api-types.js";
import { conversationOf, tripsOf } from "./conversation.js";
import { latenciesOf, readRunHistory, type RunHistory } from "./run-history.js";
import { runStatusOf } from "./run-status.js";
import { timelineOf } from "./timeline.js";

/** How long to wait for a worker to answer the queries of a run without a result. */
const QUERY_DEADLINE_MS = 5_000;
/** The statuses of a run that ended with a failure (its result rejects at once). */
const ENDED_WITHOUT_RESULT = new Set(["FAILED", "TERMINATED", "TIMED_OUT", "CANCELLED"]);
/** The codec's encoding (src/codec): payloads the client could not decode carry it. */
const ENCRYPTED_ENCODING = "binary/encrypted";

interface Record {
  messages: Message[];
  toolCalls: ToolCallRecord[];
  trace: TraceEvent[];
  stopReason?: string;
  agentVersion?: string;
  agent?: string;
  /** The run's usage (sub-agents included), from its result or its failure. */
  usage?: RunUsage;
  /** Model calls made, from its result. */
  trips?: number;
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
    trips: result.trips,
    ...defined({ agentVersion: result.agentVersion, usage: result.usage }),
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
  const path = [namespace, workflowId, runId].map(encodeURIComponent);
  return `${base.replace(/\/$/, "")}/namespaces/${path[0]}/workflows/${path[1]}/${path[2]}/history`;
}

/** The run ids of a workflow id's runs (a continue-as-new chain), oldest first, from visibility. */
async function chainRunIds(client: Client, workflowId: string): Promise<string[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const info of client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` }))
    runs.push({ runId: info.runId, start: info.startTime.getTime() });
  return runs.sort((a, b) => a.start - b.start).map((run) => run.runId);
}

/** A session's messages in order across its runs (each message's result holds its part of the conversation), its trips and its totals. */
async function sessionRecord(
  client: Client,
  workflowId: string,
  runIds: string[],
): Promise<Pick<RunView, "items" | "trips" | "totals" | "timeline">> {
  const items: ConversationItem[] = [];
  const trips: TripView[] = [];
  const usages: RunUsage[] = [];
  const histories: RunHistory[] = [];
  let index = 0;
  for (const runId of runIds) {
    const results = await sessionRunResults(client, workflowId, runId);
    const history = await readRunHistory(client, workflowId, runId);
    histories.push(history);
    const latencies = latenciesOf(
      history,
      results.flatMap((result) => result.toolCalls),
      results.flatMap((result) => result.trace),
    );
    for (const result of results) {
      items.push({ type: "session-message", index: index++, status: result.stopReason });
      items.push(...conversationOf(result.workflowId, result.messages, result.toolCalls, result.trace, latencies));
      trips.push(...tripsOf(result.trace, result.toolCalls, latencies));
      if (result.usage) usages.push(result.usage);
    }
  }
  return {
    items,
    trips,
    totals: totalsOf(trips, usages.length > 0 ? sumUsage(usages) : undefined),
    timeline: timelineOf(histories, []),
  };
}

/** The run's totals: its usage when known (it counts sub-agents and failed attempts), else its trips' sum. */
function totalsOf(
  trips: readonly TripView[],
  usage: { totalTokens?: number; costUsd?: number } | undefined,
): RunTotals {
  const summed = (key: "tokens" | "cost") =>
    trips.some((t) => t[key] !== undefined) ? trips.reduce((sum, t) => sum + (t[key] ?? 0), 0) : undefined;
  return {
    trips: trips.length,
    ...defined({ tokens: usage?.totalTokens ?? summed("tokens"), cost: usage?.costUsd ?? summed("cost") }),
  };
}

function sumUsage(usages: readonly RunUsage[]): Pick<RunUsage, "totalTokens" | "costUsd"> {
  const priced = usages.filter((u) => u.costUsd !== undefined);
  return {
    totalTokens: usages.reduce((sum, u) => sum + u.totalTokens, 0),
    ...(priced.length > 0 ? { costUsd: priced.reduce((sum, u) => sum + u.costUsd!, 0) } : {}),
  };
}

/** Why a run that did not complete ended: its failure's typed error (or the failure itself), and the usage it carries. */
async function failureOf(
  client: Client,
  workflowId: string,
  runId: string,
): Promise<{ error: RunError; usage?: RunUsage } | undefined> {
  const error = await client.workflow
    .getHandle(workflowId, runId)
    .result()
    .then(
      () => undefined,
      (reason: unknown) => reason,
    );
  if (!(error instanceof Error)) return undefined;
  const typed = fromFailure(error);
  const cause = (typed ?? error.cause ?? error) as Error & { type?: string };
  const usage = typed?.usage ?? usageOfFailure(error);
  return {
    error: { type: typed?.name ?? cause.type ?? cause.name, message: cause.message },
    ...defined({ usage }),
  };
}

/** A fork's origin and what was changed for it, from its start input (`fork`, and the changes recorded with it). */
function forkOriginOf(args: AgentRunArgs | undefined): ForkOrigin | undefined {
  const from = args?.fork?.from ?? args?.resume?.forkedFrom;
  if (!from) return undefined;
  const { modelSettings, ...changes } = args?.fork?.changes ?? {};
  return { ...from, changes: { ...changes, ...(modelSettings ? { modelSettings: { ...modelSettings } } : {}) } };
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
    totals: { trips: 0 },
    timeline: { startedAt: description.startTime.toISOString(), durationMs: 0, steps: [] },
  };
  const version = attributes.get(SEARCH_ATTRIBUTES.version);
  const stopReason = attributes.get(SEARCH_ATTRIBUTES.stopReason);
  if (version !== undefined) view.version = version;
  if (stopReason !== undefined) view.stopReason = stopReason;
  const input = await startInput(client, workflowId, runId);
  if (input.encrypted) return { ...view, encrypted: true };
  // Without search attributes, the agent's name is the run's input's.
  if (input.args?.agent !== undefined) view.agent = input.args.agent;
  if (description.type === SESSION_WORKFLOW_NAME) {
    const runs = await chainRunIds(client, workflowId);
    return { ...view, session: { runs }, ...(await sessionRecord(client, workflowId, runs)) };
  }
  const completed = description.status.name === "COMPLETED";
  const failure = ENDED_WITHOUT_RESULT.has(description.status.name)
    ? await failureOf(client, workflowId, runId)
    : undefined;
  const record = completed
    ? await completedRecord(client, workflowId, runId)
    : await liveRecord(client, workflowId, runId, input.args);
  const history = await readRunHistory(client, workflowId, runId);
  const latencies = latenciesOf(history, record.toolCalls, record.trace);
  if (record.agentVersion !== undefined) view.version = record.agentVersion;
  if (record.stopReason !== undefined) view.stopReason = record.stopReason;
  view.status = runStatusOf(description.status.name, view.stopReason);
  const trips = tripsOf(record.trace, record.toolCalls, latencies);
  const usage = record.usage ??
    failure?.usage ?? {
      totalTokens: attributes.get(SEARCH_ATTRIBUTES.tokens),
      costUsd: attributes.get(SEARCH_ATTRIBUTES.costUsd),
    };
  return {
    ...view,
    ...defined({ error: failure?.error, forkedFrom: forkOriginOf(input.args) }),
    timeline: timelineOf([history], record.trace, { fromTrip: input.args?.fork?.from.atTrip ?? 0 }),
    items: conversationOf(workflowId, record.messages, record.toolCalls, record.trace, latencies),
    trips,
    totals: { ...totalsOf(trips, usage), ...defined({ trips: record.trips }) },
  };
}
