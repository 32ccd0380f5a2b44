/**
 * A task as A2A shows it, from the session message it is: its state from the message's turn, the
 * answer (the text of the message's assistant messages) as its one artifact, and, while a call
 * waits for approval, the calls that wait in its status message.
 */
import type { Artifact, Message as A2AMessage, Part, Task, TaskState, TaskStatus } from "@a2a-js/sdk";
import type { Message, PendingApproval } from "../core/types.js";
import type { SessionTurn, SessionTurnStatus } from "../workflows/definitions.js";

/** Which task: its id, its context and the session workflow that holds it. */
export interface TaskRef {
  taskId: string;
  contextId: string;
  workflowId: string;
}

/** A2A 1.0's task states by number (the SDK's `TaskState` enum). */
const STATE = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6 } as const;

/** The A2A state of each status of a session message. */
const STATE_OF: Record<SessionTurnStatus, TaskState> = {
  queued: STATE.submitted,
  answering: STATE.working,
  "waiting-for-approval": STATE.inputRequired,
  answered: STATE.completed,
  failed: STATE.failed,
  cancelled: STATE.canceled,
};

/** Whether a task in this status takes no more events: it ended, or it waits for a decision. */
export function settled(status: SessionTurnStatus): boolean {
  return status !== "queued" && status !== "answering";
}

/** The id of a task's one artifact, the answer. */
export const ANSWER_ARTIFACT = "answer";

/** A text part of A2A 1.0. */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

/** An agent's message in a task (a status message). */
function agentMessage(ref: TaskRef, id: string, parts: Part[]): A2AMessage {
  return {
    messageId: `${ref.taskId}-${id}`,
    contextId: ref.contextId,
    taskId: ref.taskId,
    role: 2, // ROLE_AGENT
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The task's status: its state, and what the caller needs to know (the calls to decide, a failure). */
export function taskStatus(ref: TaskRef, turn: SessionTurn, pending: PendingApproval[] = []): TaskStatus {
  const state = STATE_OF[turn.status];
  let message: A2AMessage | undefined;
  if (turn.status === "waiting-for-approval" && pending.length > 0) {
    const asks = pending.map((p) => `${p.tool} ${JSON.stringify(p.input)} (call ${p.callId})`).join("; ");
    message = agentMessage(ref, "approval", [
      textPart(
        `Waiting for approval: ${asks}. Answer in this task with "approve" or "reject", or a data part ` +
          `{ "approve": true | false, "reason"?, "callId"? }.`,
      ),
      {
        content: {
          $case: "data",
          value: { approvals: pending.map(({ callId, tool, input }) => ({ callId, tool, input })) },
        },
        metadata: undefined,
        filename: "",
        mediaType: "application/json",
      },
    ]);
  } else if (turn.status === "failed" && turn.error) {
    message = agentMessage(ref, "failed", [textPart(`${turn.error.name}: ${turn.error.message}`)]);
  }
  return { state, message, timestamp: undefined };
}

/** The answer's artifact with `text`. */
export function answerArtifact(text: string): Artifact {
  return {
    artifactId: ANSWER_ARTIFACT,
    name: ANSWER_ARTIFACT,
    description: "",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** The answer of a message: the text of its assistant messages, joined by a blank line (as the stream writes it). */
export function answerText(messages: readonly Message[]): string {
  return messages.flatMap((m) => (m.role === "assistant" && m.content ? [m.content] : [])).join("\n\n");
}

/** The task: its state, and its answer once there is one. */
export function taskOf(ref: TaskRef, turn: SessionTurn, answer: string | undefined, pending: PendingApproval[]): Task {
  return {
    id: ref.taskId,
    contextId: ref.contextId,
    status: taskStatus(ref, turn, pending),
    artifacts: answer ? [answerArtifact(answer)] : [],
    history: [],
    metadata: { workflowId: ref.workflowId },
  };
}
