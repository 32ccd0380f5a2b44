/**
 * What a chat's POST asks for, read from `useChat`'s request body (`{ id, messages, trigger,
 * messageId }`): a new message (the last user message's text), or decisions on tool calls
 * waiting for approval (the last message is the assistant's, with tool parts in state
 * `approval-responded`). The client's copy of earlier messages is never read: the session's
 * durable history is the truth.
 */
import { z } from "zod";
import { ChatRequestError } from "../errors.js";

/** The longest chat id taken (it becomes part of a workflow id). */
const MAX_CHAT_ID_LENGTH = 200;

/** A chat id: the session's id. */
export const chatIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_CHAT_ID_LENGTH, `must be at most ${MAX_CHAT_ID_LENGTH} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, "must not hold control characters");

const part = z.looseObject({ type: z.string() });
const message = z.looseObject({
  id: z.string(),
  role: z.enum(["system", "user", "assistant"]),
  parts: z.array(part),
});
const bodySchema = z.looseObject({
  id: chatIdSchema,
  messages: z.array(message).min(1, "must hold at least the new message"),
  trigger: z.enum(["submit-message", "regenerate-message"]),
  messageId: z.string().optional(),
});

const approvalResponded = z.looseObject({
  type: z.string().regex(/^(tool-.+|dynamic-tool)$/),
  toolCallId: z.string().min(1),
  state: z.literal("approval-responded"),
  approval: z.looseObject({ id: z.string(), approved: z.boolean(), reason: z.string().optional() }),
});

/** A person's decision on a tool call, from an `approval-responded` tool part. */
export interface ChatDecision {
  callId: string;
  approved: boolean;
  reason?: string;
}

/** What a POST asks for. */
export type ChatRequest =
  | { chatId: string; kind: "message"; text: string }
  | { chatId: string; kind: "decisions"; messageId: string; decisions: ChatDecision[] };

/** Reads a POST's JSON body; throws `ChatRequestError` naming what is wrong. */
export function parseChatRequest(json: unknown): ChatRequest {
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success)
    throw new ChatRequestError(
      `the body is not useChat's { id, messages, trigger, messageId }: ${z.prettifyError(parsed.error).replace(/\n\s*/g, " ")}`,
    );
  const { id: chatId, messages, trigger } = parsed.data;
  if (trigger === "regenerate-message")
    throw new ChatRequestError(
      "trigger \"regenerate-message\" is not supported: a chat's history is append-only (it is the session's durable history); send a new message instead",
    );
  const last = messages.at(-1)!;
  if (last.role === "assistant") {
    const decisions = last.parts.flatMap((p) => {
      const responded = approvalResponded.safeParse(p);
      if (!responded.success) return [];
      const { toolCallId, approval } = responded.data;
      return [
        { callId: toolCallId, approved: approval.approved, ...(approval.reason ? { reason: approval.reason } : {}) },
      ];
    });
    if (decisions.length === 0)
      throw new ChatRequestError(
        "the last message is the assistant's but has no tool part in state approval-responded; send a user message, or decide a call waiting for approval",
      );
    return { chatId, kind: "decisions", messageId: last.id, decisions };
  }
  if (last.role !== "user")
    throw new ChatRequestError(`the last message is a ${last.role} message; send a user message`);
  const text = last.parts.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : [])).join("\n");
  if (text.trim() === "")
    throw new ChatRequestError("the last user message has no text (a text part that is not empty)");
  return { chatId, kind: "message", text };
}
