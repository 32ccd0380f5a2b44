/**
 * Pure: a run's record (messages, tool calls, trace) as the studio's conversation: user and
 * assistant messages, reasoning, tool calls with their approvals, re-prompts and backstops on
 * their trips, sub-agents nested and handoffs; and per trip its tokens, cost and latencies.
 */
import { defined } from "../../core/defined.js";
import {
  textOf,
  type Message,
  type ProviderToolCall,
  type RepromptKind,
  type ToolCallRecord,
  type TraceEvent,
} from "../../core/types.js";
import { MEMORY_MESSAGE_HEADING } from "../../core/memory.js";
import type {
  ApprovalItem,
  BackstopItem,
  ConversationItem,
  ToolCallItem,
  ToolCallStatus,
  TripView,
} from "../api-types.js";

/** Activity timings read from the run's history (src/studio/server/latencies.ts). */
export interface Latencies {
  /** The model call's latency by trip. */
  model: Map<number, number>;
  /** Each executed tool call's latency by call id. */
  tools: Map<string, number>;
}

/** Why each kind of re-prompt is sent (the trace records the kind and the text). */
const REPROMPT_REASONS: Record<RepromptKind, string> = {
  "act-when-asked": "actWhenAsked: the user asked for an action and the answer called none of the required tools",
  "refusal-retry": "a tool call was refused: the model was asked to try again",
  "output-repair": "the answer did not match the output schema: the model was asked to repair it",
  backstop: "a backstop asked the model to go on",
};

type Event<T extends TraceEvent["type"]> = Extract<TraceEvent, { type: T }>;

function approvalItems(trace: readonly TraceEvent[]): Map<string, ApprovalItem> {
  const approvals = new Map<string, ApprovalItem>();
  for (const event of trace) {
    if (event.type !== "approval") continue;
    const item = approvals.get(event.callId) ?? { type: "approval", callId: event.callId, tool: event.tool };
    if (event.outcome === "approved" || event.outcome === "rejected") {
      item.decision = event.outcome;
      if (event.by !== undefined) item.by = event.by;
      if (event.decidedAt !== undefined) item.at = event.decidedAt;
      if (event.outcome === "rejected" && event.reason !== undefined) item.reason = event.reason;
    } else if (event.outcome === "timed-out") item.decision = "timedOut";
    approvals.set(event.callId, item);
  }
  return approvals;
}

function statusOf(record: ToolCallRecord | undefined, approval: ApprovalItem | undefined): ToolCallStatus {
  if (approval?.decision === "rejected" || approval?.decision === "timedOut") return "denied";
  return record?.status ?? "waiting";
}

function backstopReason(event: Event<"backstop">): string {
  if (event.outcome === "prompted" && event.detail) return "prompted the model";
  return `${event.outcome}${event.detail ? `: ${event.detail}` : ""}`;
}

/** The backstop entries worth showing: not skipped ones, and a "detected" one only when nothing followed it (its run's outcome says more). */
function shownBackstopEvents(trace: readonly TraceEvent[]): Event<"backstop">[] {
  const events = trace.filter((e): e is Event<"backstop"> => e.type === "backstop" && e.outcome !== "skipped");
  return events.filter(
    (event, i) =>
      event.outcome !== "detected" ||
      !events.slice(i + 1).some((later) => later.name === event.name && later.phase === event.phase),
  );
}

/** A sub-agent's conversation from its trace alone (its answers, tool calls, re-prompts and backstops). */
export function traceConversation(trace: readonly TraceEvent[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  const backstops = new Set(shownBackstopEvents(trace));
  for (const event of trace) {
    if (event.type === "model.answered" && event.text)
      items.push({ type: "assistant", text: event.text, trip: event.trip });
    else if (event.type === "tool.finished")
      items.push({
        type: "tool-call",
        callId: event.callId,
        tool: event.tool,
        input: undefined,
        ...defined({ output: event.error }),
        status: event.status,
        ...defined({ refusalReason: event.reason }),
        trip: event.trip,
        ...(event.provider ? { runsOn: AT_THE_PROVIDER } : {}),
      });
    else if (event.type === "reprompt")
      items.push({ type: "reprompt", trip: event.trip, reason: REPROMPT_REASONS[event.kind], text: event.text });
    else if (event.type === "backstop" && backstops.has(event)) items.push(backstopItem(event));
    else if (event.type === "subagent.finished" || event.type === "subagent.started")
      items.push(...subagentItem(event, trace));
  }
  return items;
}

function subagentItem(
  event: Event<"subagent.started"> | Event<"subagent.finished">,
  trace: readonly TraceEvent[],
): ConversationItem[] {
  // A finished call's `started` entry is shown by its `finished` one.
  if (
    event.type === "subagent.started" &&
    trace.some((e) => e.type === "subagent.finished" && e.callId === event.callId)
  )
    return [];
  return [
    { type: "subagent", tool: event.tool, workflowId: event.workflowId, items: traceConversation(event.trace ?? []) },
  ];
}

/** A backstop's trace entry as an item: a before-phase one on the trip its prompt goes to, with the prompt it sent. */
function backstopItem(event: Event<"backstop">): BackstopItem {
  const prompted = event.outcome === "prompted" && !!event.detail;
  return {
    type: "backstop",
    trip: event.phase === "before" ? event.trip + 1 : event.trip,
    name: event.name,
    phase: event.phase,
    reason: backstopReason(event),
    ...(prompted ? { prompt: event.detail } : {}),
  };
}

/** The conversation of a run (or of one session message's new messages) from its record. */
export function conversationOf(
  workflowId: string,
  messages: readonly Message[],
  toolCalls: readonly ToolCallRecord[],
  trace: readonly TraceEvent[],
  latencies: Latencies,
): ConversationItem[] {
  const calls = new Map(toolCalls.map((call) => [call.id, call]));
  const answeredTrips = trace.filter((e) => e.type === "model.answered").map((e) => e.trip);
  const reprompts = trace.filter((e): e is Event<"reprompt"> => e.type === "reprompt");
  const approvals = approvalItems(trace);
  const backstops = shownBackstopEvents(trace);
  const shownBackstops = new Set<Event<"backstop">>();
  const items: ConversationItem[] = [];
  const show = (events: Event<"backstop">[]) => {
    for (const event of events) {
      shownBackstops.add(event);
      items.push(backstopItem(event));
    }
  };
  const unshown = (phase: "before" | "after", trip: number) =>
    backstops.filter((b) => b.phase === phase && b.trip === trip && !shownBackstops.has(b));
  let answers = 0;
  const recalls = trace.filter((e): e is Event<"memory.recalled"> => e.type === "memory.recalled");
  // A session message's trips go on from the session's: its before-phase backstops ran on the trip before its first.
  let trip = (answeredTrips[0] ?? 1) - 1;
  for (const message of messages) {
    const recall =
      message.role === "system" && message.content.startsWith(MEMORY_MESSAGE_HEADING) ? recalls.shift() : undefined;
    if (recall) items.push(memoryItem(recall));
    else if (message.role === "user") {
      const text = textOf(message.content);
      // Before-phase backstops ran on the user's message; the prompts they sent follow it as one message.
      const before = unshown("before", trip);
      const prompts = before.flatMap((b) => (b.outcome === "prompted" && b.detail ? [b.detail] : []));
      if (prompts.length > 0 && prompts.join("\n\n") === text) {
        show(before);
        continue;
      }
      const reprompt = reprompts[0]?.text === text ? reprompts.shift() : undefined;
      items.push(
        reprompt
          ? { type: "reprompt", trip: reprompt.trip, reason: REPROMPT_REASONS[reprompt.kind], text }
          : { type: "user", text },
      );
      if (!reprompt && prompts.length === 0) show(before);
    } else if (message.role === "assistant") {
      trip = answeredTrips[answers++] ?? trip + 1;
      for (const part of message.reasoning ?? [])
        if (part.text) items.push({ type: "reasoning", text: part.text, trip });
      for (const call of message.providerToolCalls ?? []) items.push(providerCallItem(call, trip));
      if (message.content) items.push({ type: "assistant", text: message.content, trip });
      for (const call of message.toolCalls ?? [])
        items.push(...toolCallItems(workflowId, call, trip, calls, approvals, trace, latencies));
      show(unshown("after", trip));
    }
  }
  // What the messages do not show (a re-prompt or a backstop of a trip whose answer is not in them).
  for (const reprompt of reprompts)
    items.push({ type: "reprompt", trip: reprompt.trip, reason: REPROMPT_REASONS[reprompt.kind], text: reprompt.text });
  show(backstops.filter((event) => !shownBackstops.has(event)));
  return items;
}

/** What memory gave the model, from its trace entry. */
function memoryItem(event: Event<"memory.recalled">): ConversationItem {
  const working = event.workingMemory;
  return {
    type: "memory",
    ...(working === undefined
      ? {}
      : { workingMemory: typeof working === "string" ? working : JSON.stringify(working, null, 2) }),
    recalled: event.recalled.map(({ role, text, createdAt }) => ({ role, text, createdAt })),
  };
}

/** Where a provider-run call ran, as the page shows it. */
const AT_THE_PROVIDER = "run by the model's provider";

/** A call the provider ran while answering, from its answer (which holds its input and result). */
function providerCallItem(call: ProviderToolCall, trip: number): ToolCallItem {
  const { id: callId, name: tool, input, output } = call;
  return {
    type: "tool-call",
    callId,
    tool,
    input,
    ...defined({ output }),
    status: call.isError ? "failed" : "ok",
    trip,
    runsOn: AT_THE_PROVIDER,
  };
}

function toolCallItems(
  workflowId: string,
  call: { id: string; name: string; arguments: string },
  trip: number,
  calls: Map<string, ToolCallRecord>,
  approvals: Map<string, ApprovalItem>,
  trace: readonly TraceEvent[],
  latencies: Latencies,
): ConversationItem[] {
  const record = calls.get(call.id);
  const approval = approvals.get(call.id);
  const rejection = trace.find((e) => e.type === "approval" && e.callId === call.id && e.outcome === "rejected");
  const reason = record?.reason ?? (rejection?.type === "approval" ? rejection.reason : undefined);
  const output = record?.output ?? record?.error;
  const latency = latencies.tools.get(call.id);
  const remote = trace.find((e): e is Event<"remote.started"> => e.type === "remote.started" && e.callId === call.id);
  const item: ToolCallItem = {
    type: "tool-call",
    callId: call.id,
    tool: call.name,
    input: record?.input ?? parseArguments(call.arguments),
    ...defined({ output }),
    status: statusOf(record, approval),
    ...defined({ refusalReason: reason }),
    trip: record?.trip ?? trip,
    ...defined({ latencyMs: latency }),
    ...(remote ? { runsOn: `${remote.target} ${remote.name} on task queue ${remote.taskQueue}` } : {}),
  };
  const items: ConversationItem[] = [item];
  if (approval) items.push(approval);
  for (const event of trace) {
    if ((event.type === "subagent.started" || event.type === "subagent.finished") && event.callId === call.id)
      items.push(...subagentItem(event, trace));
    if (event.type === "handoff" && event.callId === call.id) items.push({ type: "handoff", to: event.to, workflowId });
  }
  return items;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Per trip: the model's latency, the tools' latencies, tokens and cost. */
export function tripsOf(
  trace: readonly TraceEvent[],
  toolCalls: readonly ToolCallRecord[],
  latencies: Latencies,
): TripView[] {
  return trace
    .filter((e): e is Event<"model.answered"> => e.type === "model.answered")
    .map((event) => {
      const tools: Record<string, number> = {};
      for (const call of toolCalls) {
        const latency = latencies.tools.get(call.id);
        if (call.trip === event.trip && latency !== undefined) tools[call.id] = latency;
      }
      const model = latencies.model.get(event.trip);
      return {
        trip: event.trip,
        ...defined({ modelLatencyMs: model }),
        toolLatenciesMs: tools,
        ...defined({ tokens: event.usage?.totalTokens, cost: event.usage?.costUsd }),
      };
    });
}
