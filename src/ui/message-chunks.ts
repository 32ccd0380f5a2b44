/**
 * A message of the chat's durable history as the UI message chunks that build it: from its `start`
 * to its `finish`, what a watcher hands over when an answer went on and ended between two of its
 * looks (after an approval made in another tab, an answer that took less than the watch interval);
 * or the rest of it, what a cut stream hands over when the answer ended while the connection was
 * down. Either way the consumer's copy of the message ends as the history does.
 */
import { getToolName, isToolUIPart, type UIMessage, type UIMessageChunk } from "ai";

/** The chunks of `message`, each part as the stream sent it, in steps as its `step-start` parts say. */
export function messageChunks(message: UIMessage): UIMessageChunk[] {
  return [{ type: "start", messageId: message.id }, ...partChunks(message.parts, 0, false)];
}

/**
 * The chunks that end a consumer's copy of `message` that holds its first `steps` steps, the last of
 * them perhaps cut short (an answer that ended while the connection was down): `reset-step`, which
 * drops what the consumer has of its last step, then that step as the history has it, the steps
 * after it, and the `finish`. Nothing comes twice and nothing is missing, however the step was cut.
 */
export function messageRestChunks(message: UIMessage, steps: number): UIMessageChunk[] {
  let from = 0;
  if (steps > 0) {
    let seen = 0;
    from = message.parts.findIndex((part) => part.type === "step-start" && ++seen === steps) + 1;
    if (from === 0) from = message.parts.length;
  }
  return [{ type: "reset-step" }, ...partChunks(message.parts.slice(from), from, steps > 0)];
}

/** The chunks of `parts` (from index `first` of their message, for unique part ids), `inStep` when a step is open before them. */
function partChunks(parts: UIMessage["parts"], first: number, inStep: boolean): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [];
  let step = inStep;
  parts.forEach((part, at) => {
    const index = first + at;
    if (part.type === "step-start") {
      if (step) chunks.push({ type: "finish-step" });
      chunks.push({ type: "start-step" });
      step = true;
    } else if (part.type === "text") {
      const id = `text-${index}`;
      chunks.push({ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id });
    } else if (part.type === "reasoning") {
      const id = `reasoning-${index}`;
      chunks.push(
        { type: "reasoning-start", id },
        { type: "reasoning-delta", id, delta: part.text },
        { type: "reasoning-end", id },
      );
    } else if (isToolUIPart(part)) chunks.push(...toolChunks(part));
    else if (part.type.startsWith("data-")) {
      const { id, data } = part as { id?: string; data: unknown };
      const chunk: Extract<UIMessageChunk, { type: `data-${string}` }> = { type: part.type as `data-${string}`, data };
      if (id !== undefined) chunk.id = id;
      chunks.push(chunk);
    }
  });
  if (step) chunks.push({ type: "finish-step" });
  chunks.push({ type: "finish" });
  return chunks;
}

type ToolPart = Extract<UIMessage["parts"][number], { toolCallId: string }>;

/** A tool part's chunks: its input, its approval request and decision, and its outcome. */
function toolChunks(part: ToolPart): UIMessageChunk[] {
  const toolCallId = part.toolCallId;
  const chunks: UIMessageChunk[] = [
    {
      type: "tool-input-available",
      toolCallId,
      toolName: getToolName(part),
      input: part.input,
      ...(part.type === "dynamic-tool" ? { dynamic: true } : {}),
    },
  ];
  const approval = "approval" in part ? part.approval : undefined;
  if (approval) {
    chunks.push({ type: "tool-approval-request", approvalId: approval.id, toolCallId });
    if (approval.approved !== undefined) {
      const response: Extract<UIMessageChunk, { type: "tool-approval-response" }> = {
        type: "tool-approval-response",
        approvalId: approval.id,
        approved: approval.approved,
      };
      if (approval.reason !== undefined) response.reason = approval.reason;
      chunks.push(response);
    }
  }
  if (part.state === "output-available")
    chunks.push({ type: "tool-output-available", toolCallId, output: part.output });
  else if (part.state === "output-error")
    chunks.push({ type: "tool-output-error", toolCallId, errorText: part.errorText });
  else if (part.state === "output-denied") chunks.push({ type: "tool-output-denied", toolCallId });
  return chunks;
}
