/**
 * A chat's durable history as the AI SDK's `UIMessage[]`, built from the session's state (its
 * turns, conversation, tool call records, trace and waiting calls), so a reloaded page shows the
 * whole chat. Message ids come from the session (`<chatId>-u<index>` for the user's message,
 * `<chatId>-m<index>` for its answer: the id the answer's stream uses too). An answer in flight
 * is left out (resuming shows it); an answer waiting for approval is shown, ending at the
 * approval request, under the id its resume uses, so a reload never shows it twice. A user
 * message's images and PDFs are its file parts; a stopped answer keeps the text it had, with a
 * `data-stopped` part; a message answered again (`regenerate()`) gives its place to the new answer.
 */
import type { UIMessage } from "ai";
import type { ContentPart, Message, PendingApproval, ToolCallRecord, TraceEvent } from "../core/types.js";
import { textOf } from "../core/types.js";
import { defined } from "../core/defined.js";
import type { SessionTurn } from "../workflows/definitions.js";

type Part = UIMessage["parts"][number];
type Approval = Extract<TraceEvent, { type: "approval" }>;
type Reprompt = Extract<TraceEvent, { type: "reprompt" }>;

/** The session's state a chat's history is built from. */
export interface ChatState {
  turns: SessionTurn[];
  messages: Message[];
  toolCalls: ToolCallRecord[];
  trace: TraceEvent[];
  pending: PendingApproval[];
}

/** The id of a message's user message in the chat. */
export const userMessageId = (chatId: string, index: number) => `${chatId}-u${index}`;
/** The id of a message's answer in the chat: its stream's `start` carries it. */
export const answerMessageId = (chatId: string, index: number) => `${chatId}-m${index}`;

/** The chat's messages: each session message's user message and, unless it is in flight, its answer. */
export function chatHistory(chatId: string, state: ChatState): UIMessage[] {
  const records = new Map(state.toolCalls.map((call) => [call.id, call]));
  const approvals = new Map<string, Approval>();
  for (const event of state.trace) if (event.type === "approval") approvals.set(event.callId, event);
  const reprompts = state.trace.filter((e): e is Reprompt => e.type === "reprompt");
  const waiting = new Set(state.pending.map((p) => p.callId));
  const regenerated = new Set(state.turns.flatMap((turn) => turn.regenerates ?? []));
  return state.turns.flatMap((turn): UIMessage[] => {
    if (turn.messagesFrom === undefined) return []; // queued: not in the conversation yet
    if (regenerated.has(turn.index)) return []; // answered again: the new answer takes its place
    const user = state.messages[turn.messagesFrom];
    const asked: UIMessage = {
      id: userMessageId(chatId, turn.index),
      role: "user",
      parts: user?.role === "user" ? userParts(user.content) : [{ type: "text", text: "" }],
    };
    if (turn.status === "answering" || turn.status === "queued") return [asked];
    const end = turn.messagesTo ?? state.messages.length;
    const answer = state.messages.slice(turn.messagesFrom + 1, end);
    const parts = answerParts(answer, { records, approvals, reprompts, waiting });
    if (turn.status === "failed" && turn.error) parts.push({ type: "data-failed", data: turn.error } as Part);
    if (turn.status === "cancelled")
      parts.push({ type: "data-stopped", data: { stopReason: "cancelled", detail: "stopped" } } as Part);
    return [asked, { id: answerMessageId(chatId, turn.index), role: "assistant", parts }];
  });
}

/** A user message's parts: its text, and its images and PDFs as file parts. */
function userParts(content: string | ContentPart[]): Part[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part): Part => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (part.type === "image_url")
      return { type: "file", mediaType: mediaTypeOf(part.image_url.url, "image/*"), url: part.image_url.url };
    const { file_data: url, filename } = part.file;
    return { type: "file", mediaType: mediaTypeOf(url, "application/pdf"), url, ...defined({ filename }) };
  });
}

/** A data URL's media type, else `fallback`. */
function mediaTypeOf(url: string, fallback: string): string {
  return /^data:([^;,]+)[;,]/.exec(url)?.[1] ?? fallback;
}

interface Lookups {
  records: Map<string, ToolCallRecord>;
  approvals: Map<string, Approval>;
  reprompts: Reprompt[];
  waiting: Set<string>;
}

/** An answer's parts: a step per model answer (reasoning, text, tool calls), and a data part per re-prompt. */
function answerParts(messages: Message[], lookups: Lookups): Part[] {
  const parts: Part[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      parts.push({ type: "step-start" });
      for (const reasoning of message.reasoning ?? [])
        if (reasoning.text !== "") parts.push({ type: "reasoning", text: reasoning.text, state: "done" });
      if (message.content) parts.push({ type: "text", text: message.content, state: "done" });
      for (const call of message.toolCalls ?? []) parts.push(toolPart(call.id, call.name, call.arguments, lookups));
    } else if (message.role === "user") {
      // A user message inside an answer is a re-prompt the contract sent.
      const text = textOf(message.content);
      const at = lookups.reprompts.findIndex((r) => r.text === text);
      const reprompt = at === -1 ? undefined : lookups.reprompts.splice(at, 1)[0];
      parts.push({
        type: "data-reprompt",
        data: reprompt ? { trip: reprompt.trip, kind: reprompt.kind, text } : { text },
      } as Part);
    }
  }
  return parts;
}

/** A tool call as the AI SDK's tool part, in the state its record, its approval and the waiting calls say. */
function toolPart(callId: string, name: string, args: string, { records, approvals, waiting }: Lookups): Part {
  const record = records.get(callId);
  const approval = approvals.get(callId);
  const base = { type: `tool-${name}`, toolCallId: callId, input: record?.input ?? parseJson(args) };
  const decided =
    approval && approval.outcome !== "requested"
      ? {
          approval: {
            id: callId,
            approved: approval.outcome === "approved",
            ...defined({ reason: approval.reason }),
          },
        }
      : {};
  if (!record) {
    if (waiting.has(callId)) return { ...base, state: "approval-requested", approval: { id: callId } } as Part;
    return { ...base, state: "input-available" } as Part;
  }
  if (record.status === "ok") return { ...base, state: "output-available", output: record.output, ...decided } as Part;
  if (record.status === "refused" && approval && approval.outcome !== "approved" && approval.outcome !== "requested")
    return { ...base, state: "output-denied", ...decided } as Part;
  const errorText =
    record.status === "failed" ? (record.error ?? "the tool failed") : `refused: ${record.reason ?? "no reason given"}`;
  return { ...base, state: "output-error", errorText, ...decided } as Part;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
