/** The run's state as plain data, and the pure steps that change it. Workflow-safe. */
import { toolResultContent } from "./tool-result.js";
import type {
  ForkedFrom,
  Message,
  ProviderToolCall,
  RequestedToolCall,
  RunResult,
  StopReason,
  ToolCallRecord,
  TraceEvent,
} from "./types.js";
import { addRunUsage, addUsage, type RunUsage, type Usage } from "./usage.js";
import { defined } from "./defined.js";

/** Everything a run has done so far. */
export interface RunState {
  messages: Message[];
  toolCalls: ToolCallRecord[];
  trace: TraceEvent[];
  /** Model calls made. */
  trips: number;
  /** Tokens used by the run (a session: by all its messages), failed attempts included. */
  usage?: RunUsage;
  /** Tokens used by the current request: the run, or a session's current message. Budgets bound it. */
  requestUsage?: RunUsage;
  /** The agent whose turn it is (changes on a handoff). */
  agent?: string;
  /** Usage by agent: this run's agents and its sub-agents' runs. */
  usageByAgent?: Record<string, RunUsage>;
  /** The final answer as typed output, once it is valid (with an output schema). */
  output?: unknown;
  /** The version of the run's agent definition that served it last (as its workers reported it). */
  agentVersion?: string;
  /** Set on a fork: the recorded run it went on from. */
  forkedFrom?: ForkedFrom;
}

/** A fresh state for a run's input (or for a run continued as new, before its state is loaded). */
export function initialState(messages: Message[], trips = 0, usage?: RunUsage): RunState {
  return { messages: [...messages], toolCalls: [], trace: [], trips, ...(usage ? { usage, requestUsage: usage } : {}) };
}

/** Counts a model call's usage in the run's and the request's totals. */
export function recordUsage(state: RunState, usage: Usage, failedAttempt = false): void {
  state.usage = addUsage(state.usage, usage, failedAttempt);
  state.requestUsage = addUsage(state.requestUsage, usage, failedAttempt);
  if (state.agent !== undefined)
    state.usageByAgent = {
      ...state.usageByAgent,
      [state.agent]: addUsage(state.usageByAgent?.[state.agent], usage, failedAttempt),
    };
}

/** Counts a sub-agent run's usage (its failed attempts and its own sub-agents included) in the run's totals. */
export function recordChildUsage(
  state: RunState,
  usage: RunUsage | undefined,
  byAgent: Record<string, RunUsage> | undefined,
): void {
  if (!usage) return;
  state.usage = addRunUsage(state.usage, usage);
  state.requestUsage = addRunUsage(state.requestUsage, usage);
  const merged = { ...state.usageByAgent };
  for (const [agent, used] of Object.entries(byAgent ?? {})) merged[agent] = addRunUsage(merged[agent], used)!;
  state.usageByAgent = merged;
}

/** An answer's reasoning as one text (its reasoning parts joined; "" when it has none). */
export function reasoningText(answer: Pick<Extract<Message, { role: "assistant" }>, "reasoning"> | undefined): string {
  return (answer?.reasoning ?? []).map((part) => part.text).join("");
}

/**
 * Records a model answer as the next trip, with the usage it reported, the `agent.version` that
 * answered and the call's attempt when it was retried; the answer's reasoning goes in its
 * `model.answered`, and the calls the provider ran while answering are recorded after it as tool
 * calls of the trip (`provider: true`).
 */
export function recordAnswer(
  state: RunState,
  answer: Extract<Message, { role: "assistant" }>,
  usage?: Usage,
  agentVersion?: string,
  attempt?: number,
): void {
  state.trips += 1;
  state.messages.push(answer);
  if (usage) recordUsage(state, usage);
  const reasoning = reasoningText(answer);
  state.trace.push({
    trip: state.trips,
    type: "model.answered",
    text: answer.content,
    toolCalls: (answer.toolCalls ?? []).map((call) => call.name),
    ...defined({ usage, reasoning: reasoning || undefined, agentVersion, attempt }),
  });
  for (const call of answer.providerToolCalls ?? []) {
    const record = providerCallRecord(call, state.trips);
    state.toolCalls.push(record);
    state.trace.push({
      trip: record.trip,
      type: "tool.finished",
      tool: record.name,
      callId: record.id,
      status: record.status,
      ...defined({ error: record.error }),
      provider: true,
    });
  }
}

/** A call the provider ran, as a tool call record: failed when the provider reported an error (its result, as text, the error). */
function providerCallRecord(call: ProviderToolCall, trip: number): ToolCallRecord {
  const { id, name, input, output } = call;
  if (call.isError) {
    const error = typeof output === "string" ? output : JSON.stringify(output ?? "the provider reported an error");
    return { id, name, input, status: "failed", error, trip, provider: true };
  }
  return { id, name, input, ...defined({ output }), status: "ok", trip, provider: true };
}

/** Records the answered tool calls, in the order the model asked for them. */
export function recordToolCalls(state: RunState, calls: ToolCallRecord[]): void {
  for (const call of calls) {
    state.toolCalls.push(call);
    state.messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: toolResultContent(call) });
    state.trace.push({
      trip: call.trip,
      type: "tool.finished",
      tool: call.name,
      callId: call.id,
      status: call.status,
      ...defined({ reason: call.reason, error: call.error }),
    });
  }
}

/** A tool call whose activity failed for good (retries exhausted), recorded as `failed`. */
export function failedCall(call: RequestedToolCall, trip: number, error: string): ToolCallRecord {
  let input: unknown = call.arguments;
  try {
    input = JSON.parse(call.arguments);
  } catch {
    // keep the raw text: the model sent invalid JSON
  }
  return { id: call.id, name: call.name, input, status: "failed", error, trip };
}

/** The last answer's text. */
export function lastReply(state: RunState): string {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i]!;
    if (message.role === "assistant") return message.content ?? "";
  }
  return "";
}

/** Ends the run: records why in the trace and builds the result. */
export function finish(
  state: RunState,
  stopReason: StopReason,
  detail: string,
  ids: { workflowId: string; runId: string },
): RunResult {
  state.trace.push({ trip: state.trips, type: "run.stopped", stopReason, detail });
  return {
    ...ids,
    reply: lastReply(state),
    stopReason,
    messages: state.messages,
    toolCalls: state.toolCalls,
    trips: state.trips,
    trace: state.trace,
    ...defined({
      usage: state.usage,
      agent: state.agent,
      usageByAgent: state.usageByAgent,
      output: state.output,
      agentVersion: state.agentVersion,
      forkedFrom: state.forkedFrom,
    }),
  };
}
