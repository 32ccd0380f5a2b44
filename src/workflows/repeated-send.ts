/**
 * The answer to a `send` repeated after continue-as-new: the earlier message's, from what the
 * session holds of it (its messages in the conversation, how it ended). Workflow-safe.
 */
import { ApplicationFailure, workflowInfo } from "@temporalio/workflow";
import type { RunState } from "../core/run-state.js";
import type { RunResult } from "../core/types.js";
import type { SessionTurn } from "./definitions.js";

/**
 * The earlier message's result: its reply, stopReason, messages and the tool calls they asked for,
 * and a trip per answer; a message that failed fails again with its typed error's name and message.
 * Its trace, usage and typed output are not kept per message, so the repeat has none.
 */
export function repeatedAnswer(run: RunState, turn: SessionTurn): RunResult {
  if (turn.status === "failed")
    throw ApplicationFailure.create({
      type: turn.error?.name ?? "Error",
      message: turn.error?.message ?? "the message failed",
      nonRetryable: true,
    });
  const messages = run.messages.slice(turn.messagesFrom, turn.messagesTo);
  const answers = messages.flatMap((m) => (m.role === "assistant" ? [m] : []));
  const asked = new Set(answers.flatMap((m) => (m.toolCalls ?? []).map((call) => call.id)));
  return {
    workflowId: workflowInfo().workflowId,
    runId: workflowInfo().runId,
    reply: answers.at(-1)?.content ?? "",
    stopReason: turn.stopReason ?? "answered",
    messages,
    toolCalls: run.toolCalls.filter((call) => asked.has(call.id)),
    trips: answers.length,
    trace: [],
  };
}
