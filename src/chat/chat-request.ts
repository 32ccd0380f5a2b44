/**
 * What a chat's POST asks for, read from `useChat`'s request body (`{ id, messages, trigger,
 * messageId }`): a new message (the last user message's text, and its files: images and PDFs),
 * decisions on tool calls waiting for approval (the last message is the assistant's, with tool
 * parts in state `approval-responded`), or the last answer again (`regenerate()`). The client's
 * copy of earlier messages is never read: the session's durable history is the truth.
 */
import { z } from "zod";
import type { ContentPart } from "../core/types.js";
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
  | { chatId: string; kind: "message"; content: string | ContentPart[] }
  | { chatId: string; kind: "decisions"; messageId: string; decisions: ChatDecision[] }
  | { chatId: string; kind: "regenerate"; messageId?: string };

/** A `useChat` file part: an attachment, by URL (a data URL for an uploaded file). */
const filePart = z.looseObject({
  type: z.literal("file"),
  mediaType: z.string().min(1),
  url: z.string().min(1),
  filename: z.string().optional(),
});

/** Reads a POST's JSON body; throws `ChatRequestError` naming what is wrong. */
export function parseChatRequest(json: unknown): ChatRequest {
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success)
    throw new ChatRequestError(
      `the body is not useChat's { id, messages, trigger, messageId }: ${z.prettifyError(parsed.error).replace(/\n\s*/g, " ")}`,
    );
  const { id: chatId, messages, trigger, messageId } = parsed.data;
  if (trigger === "regenerate-message") return { chatId, kind: "regenerate", ...(messageId ? { messageId } : {}) };
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
  if (last.parts.some((p) => p.type === "file")) {
    const parts = last.parts.flatMap((p): ContentPart[] =>
      p.type === "file"
        ? [contentPartOf(p)]
        : p.type === "text" && typeof p.text === "string" && p.text !== ""
          ? [{ type: "text", text: p.text }]
          : [],
    );
    return { chatId, kind: "message", content: parts };
  }
  if (text.trim() === "")
    throw new ChatRequestError("the last user message has no text (a text part that is not empty) and no file");
  return { chatId, kind: "message", content: text };
}

/**
 * A `useChat` file part as the content part a model takes: an image as `image_url`, a PDF as a
 * `file` (each provider's file part, and Chat Completions' own); any other type is refused by name.
 */
function contentPartOf(part: unknown): ContentPart {
  const parsed = filePart.safeParse(part);
  if (!parsed.success)
    throw new ChatRequestError(
      `a file part is not { type: "file", mediaType, url }: ${z.prettifyError(parsed.error).replace(/\n\s*/g, " ")}`,
    );
  const { mediaType, url, filename } = parsed.data;
  if (mediaType.startsWith("image/")) return { type: "image_url", image_url: { url } };
  if (mediaType === "application/pdf")
    return { type: "file", file: { file_data: url, ...(filename ? { filename } : {}) } };
  throw new ChatRequestError(
    `the file ${filename ? `"${filename}" ` : ""}is of type ${mediaType}, which the model is not sent: attach images (image/*) or PDFs (application/pdf)`,
  );
}
