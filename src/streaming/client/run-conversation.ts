/**
 * A run's conversation as the UI message stream reads it: the answers' reasoning, tool calls'
 * inputs and tool results (the provider-run calls' in their answers), which run events do not carry. Read by query (`run-page`) from a
 * starting index, and again only when something asked for is not in what was read.
 */
import type { Client } from "@temporalio/client";
import { readRunPart } from "../../run-reads/index.js";
import { MAX_PAGE_BYTES } from "../../core/paging.js";
import type { Message, ProviderToolCall } from "../../core/types.js";

type Answer = Extract<Message, { role: "assistant" }>;

/** The conversation of one run (a session's, or a sub-agent's), read lazily from index `from`. */
export class RunConversation {
  readonly #messages: Message[] = [];
  /** Where the next answer is looked for: answers are taken in order. */
  #scan = 0;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly from = 0,
  ) {}

  /** The answer `text` came from (the next answer after the last one taken whose text is `text`), or undefined. */
  async answer(text: string | null): Promise<Answer | undefined> {
    const found = await this.find((m, i) => i >= this.#scan && m.role === "assistant" && (m.content ?? null) === text);
    if (found === undefined) return undefined;
    this.#scan = found + 1;
    return this.#messages[found] as Answer;
  }

  /** A tool call's input: its arguments parsed (the raw text when they are not JSON), or undefined when not found. */
  async toolInput(callId: string): Promise<unknown> {
    const found = await this.find((m) => m.role === "assistant" && (m.toolCalls ?? []).some((c) => c.id === callId));
    if (found === undefined) return undefined;
    const call = (this.#messages[found] as Answer).toolCalls!.find((c) => c.id === callId)!;
    return parseJson(call.arguments.trim() === "" ? "{}" : call.arguments);
  }

  /** A call the provider ran while answering, as its answer holds it; undefined when not found. */
  async providerCall(callId: string): Promise<ProviderToolCall | undefined> {
    const has = (m: Message) => m.role === "assistant" && (m.providerToolCalls ?? []).some((c) => c.id === callId);
    const found = await this.find(has);
    if (found === undefined) return undefined;
    return (this.#messages[found] as Answer).providerToolCalls!.find((c) => c.id === callId);
  }

  /** A tool call's result as the conversation holds it (the JSON of the output), parsed; undefined when not found. */
  async toolResult(callId: string): Promise<unknown> {
    const found = await this.find((m) => m.role === "tool" && m.toolCallId === callId);
    return found === undefined ? undefined : parseJson((this.#messages[found] as { content: string }).content);
  }

  /** The index (in what was read) of the first message `matches`, reading the rest of the conversation once if none does. */
  private async find(matches: (message: Message, index: number) => boolean): Promise<number | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const index = this.#messages.findIndex(matches);
      if (index !== -1) return index;
      if (attempt === 0) await this.readMore();
    }
    return undefined;
  }

  private async readMore(): Promise<void> {
    const more = await readRunPart<Message>(
      this.client,
      { workflowId: this.workflowId },
      "messages",
      this.from + this.#messages.length,
      undefined,
      MAX_PAGE_BYTES,
    );
    this.#messages.push(...more);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
