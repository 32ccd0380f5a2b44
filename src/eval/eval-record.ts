import type { RecalledMemoryMessage } from "../core/memory.js";
import type { Message, RunResult, StopReason, ToolCallRecord, ToolCallStatus, TraceEvent } from "../core/types.js";
import type { RunUsage } from "../core/usage.js";
import type { EvalCase } from "../datasets/eval-case.js";
import type { ApprovalDecisionRecord } from "./report-schema.js";
import { defined } from "../core/defined.js";

/** What every scorer gets for one trial of one case: the case and what the run did. */
export interface EvalRecord<C extends EvalCase = EvalCase> {
  /** The case, with its metadata. */
  case: C;
  /** The text of the case's last user message. */
  input: string;
  /** 1-based trial number. */
  trial: number;
  /** The model's last answer. */
  reply: string;
  /** Every tool call of the run, with its `status` (`ok`, `failed`, `refused`). */
  toolCalls: ToolCallRecord[];
  /** The whole conversation. */
  messages: Message[];
  /** The agent trace: answers, tool calls, re-prompts, backstops. */
  trace: TraceEvent[];
  stopReason: StopReason;
  /** Model calls made. */
  trips: number;
  /** Tokens the run used; undefined when the server reported none. */
  usage?: RunUsage;
  /** The typed output, when the agent (or the case's run) has an `output` schema and the final answer was valid. */
  output?: unknown;
  /** The `agent.version` that served the run (the last one, if it changed: see `agent.changed` in the trace). */
  agentVersion?: string;
  /** Decisions on calls that waited for approval: approved, rejected or timed out, by whom and when (absent when no call waited). */
  approvals?: ApprovalDecisionRecord[];
  /**
   * What memory gave the model before its first trip (a run with a user, of an agent with `memory`:
   * a case with `memory`): the working memory as the model saw it and the recalled messages. Absent
   * when the run recalled nothing (no memory, or a playback).
   */
  memory?: EvalRecordMemory;
  /** The run's workflow, to find it in the Temporal UI. */
  workflowId: string;
  runId: string;
}

/** What a run's memory recall gave the model, as scorers see it on `record.memory`. */
export interface EvalRecordMemory {
  /** The run's user: a fresh id per case and trial (`durable-agent-eval:...`). */
  user: string;
  /** The working memory as the model saw it (when the agent keeps one). */
  workingMemory?: unknown;
  /** The recalled messages, matches and their neighbours, in session order. */
  recalled: RecalledMemoryMessage[];
}

/** The recall of a run's trace (its turn's, the last), as `record.memory`. */
function memoryOf(trace: readonly TraceEvent[]): { memory?: EvalRecordMemory } {
  const recall = trace.findLast(
    (e): e is Extract<TraceEvent, { type: "memory.recalled" }> => e.type === "memory.recalled",
  );
  if (!recall) return {};
  return {
    memory: { user: recall.user, ...defined({ workingMemory: recall.workingMemory }), recalled: recall.recalled },
  };
}

/** The decisions on calls that waited for approval, from a run's trace. */
export function approvalDecisionsOf(trace: readonly TraceEvent[]): ApprovalDecisionRecord[] {
  return trace.flatMap((event) =>
    event.type === "approval" && event.outcome !== "requested"
      ? [
          {
            callId: event.callId,
            tool: event.tool,
            outcome: event.outcome,
            ...defined({ by: event.by, note: event.note, reason: event.reason, decidedAt: event.decidedAt }),
          },
        ]
      : [],
  );
}

/** A tool call as reports show it. */
export interface ObservedToolCall {
  name: string;
  status: ToolCallStatus;
  /** The trip whose answer asked for it. */
  trip: number;
  input: unknown;
  /** Why it was refused. */
  reason?: string;
  /** Why it failed. */
  error?: string;
  /** Answered from the recording (an eval with recorded tools), not executed. */
  replayed?: true;
}

/** The run's tool calls as reports show them. */
export function observeToolCalls(toolCalls: readonly ToolCallRecord[]): ObservedToolCall[] {
  return toolCalls.map((call) => ({
    name: call.name,
    status: call.status,
    trip: call.trip,
    input: call.input,
    ...defined({ reason: call.reason, error: call.error }),
    ...(call.replayed ? { replayed: true as const } : {}),
  }));
}

/** The scorers' record of one trial. */
export function evalRecordOf<C extends EvalCase>(
  evalCase: C,
  input: string,
  trial: number,
  result: RunResult,
): EvalRecord<C> {
  return {
    case: evalCase,
    input,
    trial,
    reply: result.reply,
    toolCalls: result.toolCalls,
    messages: result.messages,
    trace: result.trace,
    stopReason: result.stopReason,
    trips: result.trips,
    ...defined({ usage: result.usage, output: result.output, agentVersion: result.agentVersion }),
    ...withApprovals(result.trace),
    ...memoryOf(result.trace),
    workflowId: result.workflowId,
    runId: result.runId,
  };
}

function withApprovals(trace: readonly TraceEvent[]): { approvals?: ApprovalDecisionRecord[] } {
  const approvals = approvalDecisionsOf(trace);
  return approvals.length ? { approvals } : {};
}
