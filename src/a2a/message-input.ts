/**
 * What an A2A message asks: text for the agent, and, for a task waiting for approval, a decision.
 * A decision is a data part `{ approve: true | false, reason?, callId? }` (every waiting call, or
 * the one `callId` names), or the text "approve" or "reject" alone.
 */
import type { Message } from "@a2a-js/sdk";

/** A decision on calls waiting for approval. */
export interface A2ADecision {
  approve: boolean;
  reason?: string;
  /** The call decided; every waiting call when absent. */
  callId?: string;
}

/** The message's text (its text parts, joined) and the decision its data part carries, if any. */
export interface MessageInput {
  text: string;
  decision?: A2ADecision;
}

/** The role A2A 1.0 gives a client's message (`ROLE_USER`). */
const ROLE_USER = 1;

/** Reads a message; a problem (for the invalid-params error) when it is not one this server takes. */
export function readMessage(message: Message | undefined): MessageInput | { problem: string } {
  if (!message) return { problem: "params.message is required" };
  if (message.role !== ROLE_USER) return { problem: 'message.role must be "user"' };
  const texts: string[] = [];
  let decision: A2ADecision | undefined;
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === "text" && typeof content.value === "string") texts.push(content.value);
    else if (content?.$case === "data" && isDecision(content.value))
      decision = { approve: content.value.approve, ...decisionDetails(content.value) };
    else
      return {
        problem:
          "each part must be text, or data of the form { approve: true | false, reason?: string, callId?: string } " +
          `(got ${content?.$case === "data" ? "other data" : content?.$case === "text" ? "text that is not a string" : (content?.$case ?? "an empty part")})`,
      };
  }
  const text = texts.join("\n").trim();
  if (text === "" && !decision) return { problem: "the message has no text (and no approval decision)" };
  return decision ? { text, decision } : { text };
}

/** The decision plain text says, for a task waiting for approval: "approve" or "reject" alone, in any case. */
export function decisionInText(text: string): A2ADecision | undefined {
  const word = text.trim().toLowerCase().replace(/[.!]$/, "");
  if (word === "approve" || word === "approved" || word === "yes") return { approve: true };
  if (word === "reject" || word === "rejected" || word === "no") return { approve: false };
  return undefined;
}

function isDecision(value: unknown): value is { approve: boolean; reason?: unknown; callId?: unknown } {
  return typeof value === "object" && value !== null && typeof (value as { approve?: unknown }).approve === "boolean";
}

function decisionDetails(value: { reason?: unknown; callId?: unknown }): Omit<A2ADecision, "approve"> {
  return {
    ...(typeof value.reason === "string" ? { reason: value.reason } : {}),
    ...(typeof value.callId === "string" ? { callId: value.callId } : {}),
  };
}
