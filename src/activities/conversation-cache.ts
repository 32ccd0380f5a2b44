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
import { readRunPart, type RunRef } from "../run-reads/index.js";

type Answer = Extract<Message, { role: "assistant" }>;

interface HeldConversation {
  /** Messages known to be the run's: read from it, or checked against its digest. */
  messages: Message[];
  /** The bytes of `messages` as JSON (UTF-8). */
  messageBytes: number;
  /** The bytes held for this conversation: its messages, answer and tool results. */
  bytes: number;
  chain: DigestChain;
  /** The last answer this worker's model call returned, and the results of its tool calls that ran here. */
  answer?: Produced<Answer>;
  toolResults: Map<string, Produced<Message>>;
}

/**
 * A message this worker produced, as the workflow will record it, with its JSON and that JSON's
 * UTF-8 bytes: serialised once, when produced, for its recorded form, its size and its digest.
 */
interface Produced<T extends Message> {
  message: T;
  json: string;
  bytes: number;
}

/** `value` as the workflow will see it (through JSON, as the payload converter sends it), its JSON and bytes. */
function produced<T extends Message>(value: T): Produced<T> {
  const json = JSON.stringify(value);
  return { message: JSON.parse(json) as T, json, bytes: Buffer.byteLength(json) };
}

/** How a model call got its conversation: all held by the worker, or partly read from the run. */
export type ConversationSource = "held" | "read";

/** Runs whose conversations a worker keeps (least recently used first out). */
const HELD_RUNS = 2048;

/**
 * The bytes of conversations a worker keeps by default (their messages as JSON, least recently
 * used first out): 256 MiB. A conversation with images can be megabytes; a count alone would let
 * 2,048 of them hold gigabytes. Set with the worker's `conversationCacheBytes`.
 */
export const DEFAULT_CONVERSATION_CACHE_BYTES = 256 * 1024 * 1024;

/** A message's size as the cache counts it: its JSON in UTF-8. */
const bytesOf = (message: Message): number => Buffer.byteLength(JSON.stringify(message));

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

/** Each worker's conversations, bounded by count (2,048 runs) and by bytes (`maxBytes`). */
export class ConversationCache {
  readonly #runs = new Map<string, HeldConversation>();
  #bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_CONVERSATION_CACHE_BYTES) {}

  /** The bytes held now, over every conversation. */
  get bytes(): number {
    return this.#bytes;
  }

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
      held.messageBytes += more.reduce((sum, message) => sum + bytesOf(message), 0);
      held.chain.extend(held.messages);
      source = "read";
    }
    if (held.messages.length >= length) {
      delete held.answer;
      held.toolResults.clear();
    }
    const messages = held.messages.slice(0, length);
    this.#account(ref, held);
    return { messages, source };
  }

  /** The model's answer on this worker: the conversation's next message once the workflow records it. */
  answered(conversation: ConversationRef, answer: Answer): void {
    const held = this.#held(conversation);
    held.answer = produced(answer);
    held.toolResults.clear();
    this.#account(conversation, held);
  }

  /** A tool call's result on this worker: a message of the conversation after the answer that asked for it. */
  toolFinished(conversation: ConversationRef, call: RequestedToolCall, result: ToolCallResult): void {
    const held = this.#held(conversation);
    const recorded = JSON.parse(JSON.stringify(result)) as ToolCallResult; // as the workflow records it
    held.toolResults.set(
      call.id,
      produced({ role: "tool", toolCallId: call.id, name: call.name, content: toolResultContent(recorded) }),
    );
    this.#account(conversation, held);
  }

  /** Appends the answer, its tool results and the workflow's tail if they make the conversation the workflow described. */
  #tryProduced(held: HeldConversation, { length, digest, tail }: ConversationCheck & { tail: Message[] }): void {
    const next: { message: Message; json: string; bytes: number }[] = [];
    if (held.answer) {
      next.push(held.answer);
      for (const call of held.answer.message.toolCalls ?? []) {
        const result = held.toolResults.get(call.id);
        if (result) next.push(result);
      }
    }
    for (const message of tail) {
      const json = JSON.stringify(message);
      next.push({ message, json, bytes: Buffer.byteLength(json) });
    }
    if (held.messages.length + next.length !== length) return;
    const chain = held.chain.clone();
    if (chain.extendJson(next.map((m) => m.json)).digest !== digest) return;
    for (const m of next) held.messages.push(m.message);
    held.messageBytes += next.reduce((sum, m) => sum + m.bytes, 0);
    held.chain = chain;
  }

  #held(conversation: ConversationRef): HeldConversation {
    const key = heldKey(conversation);
    const held = this.#runs.get(key) ?? {
      messages: [],
      messageBytes: 0,
      bytes: 0,
      chain: new DigestChain(),
      toolResults: new Map(),
    };
    this.#runs.delete(key); // re-insert: most recently used last
    this.#runs.set(key, held);
    if (this.#runs.size > HELD_RUNS) this.#forget(this.#runs.keys().next().value!);
    return held;
  }

  /** Counts what `held` holds now, and lets the least recently used conversations go past `maxBytes` (this one last). */
  #account(conversation: ConversationRef, held: HeldConversation): void {
    if (this.#runs.get(heldKey(conversation)) !== held) return; // let go meanwhile (a read in flight)
    let bytes = held.messageBytes + (held.answer?.bytes ?? 0);
    for (const result of held.toolResults.values()) bytes += result.bytes;
    this.#bytes += bytes - held.bytes;
    held.bytes = bytes;
    for (const key of this.#runs.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#forget(key);
    }
  }

  #forget(key: string): void {
    this.#bytes -= this.#runs.get(key)?.bytes ?? 0;
    this.#runs.delete(key);
  }
}
