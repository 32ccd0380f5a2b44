/**
 * Each worker's copy of the conversations of the runs it serves, so a model call reads only what
 * the worker does not hold. Conversations only grow. The worker holds what it has read, and what
 * its own activities produced since (the model's answer, the tool results of that answer); with
 * the messages the workflow added itself (sent with the call when small), it uses them only when
 * the length and digest the workflow sent with the model call match. On a miss (another worker
 * produced a part, a restart, a large re-prompt) it reads the rest with the `run-page` query.
 */
import type { Client } from "@temporalio/client";
import { DigestChain, type ConversationCheck } from "../core/conversation-digest.js";
import { toolResultContent, type ToolCallResult } from "../core/tool-result.js";
import type { Message, RequestedToolCall } from "../core/types.js";
import { readRunPart, type RunRef } from "../client/run-reader.js";

type Answer = Extract<Message, { role: "assistant" }>;

interface HeldConversation {
  /** Messages known to be the run's: read from it, or checked against its digest. */
  messages: Message[];
  chain: DigestChain;
  /** The last answer this worker's model call returned, and the results of its tool calls that ran here. */
  answer?: Answer;
  toolResults: Map<string, Message>;
}

/** How a model call got its conversation: all held by the worker, or partly read from the run. */
export type ConversationSource = "held" | "read";

/** Runs whose conversations a worker keeps (least recently used first out). */
const HELD_RUNS = 2048;

/**
 * Which conversation of a run: `view` counts the times a handoff's `inputFilter` replaced the run's
 * conversation (absent: never), so messages held for an earlier view are not taken for this one.
 */
export interface ConversationRef {
  runId: string;
  view?: number;
}

/** The key a conversation is held under. The one place it is built, so readers and writers cannot disagree. */
function heldKey({ runId, view }: ConversationRef): string {
  return view ? `${runId}/${view}` : runId;
}

/** As the workflow will see it: through JSON, as the payload converter sends it. */
const asRecorded = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export class ConversationCache {
  readonly #runs = new Map<string, HeldConversation>();

  /** The first `check.length` messages of the run's conversation (in its `view`), and whether the worker had to read any. */
  async read(
    client: Client,
    ref: Required<RunRef> & ConversationRef,
    check: (ConversationCheck & { tail: Message[] }) | number,
  ): Promise<{ messages: Message[]; source: ConversationSource }> {
    const length = typeof check === "number" ? check : check.length;
    const held = this.#held(ref);
    let source: ConversationSource = "held";
    if (held.messages.length < length && typeof check !== "number") this.#tryProduced(held, check);
    if (held.messages.length < length) {
      const more = await readRunPart<Message>(client, ref, "messages", held.messages.length, length);
      held.messages.push(...more);
      held.chain.extend(held.messages);
      source = "read";
    }
    if (held.messages.length >= length) {
      delete held.answer;
      held.toolResults.clear();
    }
    return { messages: held.messages.slice(0, length), source };
  }

  /** The model's answer on this worker: the conversation's next message once the workflow records it. */
  answered(conversation: ConversationRef, answer: Answer): void {
    const held = this.#held(conversation);
    held.answer = asRecorded(answer);
    held.toolResults.clear();
  }

  /** A tool call's result on this worker: a message of the conversation after the answer that asked for it. */
  toolFinished(conversation: ConversationRef, call: RequestedToolCall, result: ToolCallResult): void {
    const held = this.#held(conversation);
    held.toolResults.set(call.id, {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: toolResultContent(asRecorded(result)),
    });
  }

  /** Appends the answer, its tool results and the workflow's tail if they make the conversation the workflow described. */
  #tryProduced(held: HeldConversation, { length, digest, tail }: ConversationCheck & { tail: Message[] }): void {
    const produced: Message[] = [];
    if (held.answer) {
      produced.push(held.answer);
      for (const call of held.answer.toolCalls ?? []) {
        const result = held.toolResults.get(call.id);
        if (result) produced.push(result);
      }
    }
    produced.push(...tail);
    if (held.messages.length + produced.length !== length) return;
    const chain = held.chain.clone();
    if (chain.extend([...held.messages, ...produced]).digest !== digest) return;
    held.messages.push(...produced);
    held.chain = chain;
  }

  #held(conversation: ConversationRef): HeldConversation {
    const key = heldKey(conversation);
    const held = this.#runs.get(key) ?? { messages: [], chain: new DigestChain(), toolResults: new Map() };
    this.#runs.delete(key); // re-insert: most recently used last
    this.#runs.set(key, held);
    if (this.#runs.size > HELD_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
    return held;
  }
}
