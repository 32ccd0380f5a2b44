/**
 * What a runs list row reads from a run's start input: its agent's name (for a run without
 * durable-agent's search attributes, whose workflow type alone says "agentRun") and the first
 * words of the user's message. A run's input never changes, so each is read once and kept.
 */
import type { Client } from "@temporalio/client";
import { loadPayloadDecoding } from "../../run-reads/index.js";
import { textOf } from "../../core/types.js";
import { firstEvent } from "../../datasets/read-run.js";
import type { AgentRunArgs } from "../../workflows/definitions.js";

/** What a row shows of a run's input. */
export interface RunInput {
  /** The agent's name, from the input. */
  agent?: string;
  /** The first words of the first user message. */
  firstWords?: string;
}

/** At most this many runs' inputs are kept (the oldest read goes first). */
const KEPT = 5_000;
/** The first words: at most this many characters. */
const FIRST_WORDS_CHARS = 80;

/** The first words of a text, cut at a word boundary, with "…" when cut. */
export function firstWordsOf(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= FIRST_WORDS_CHARS) return flat;
  const cut = flat.slice(0, FIRST_WORDS_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${space > FIRST_WORDS_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** Reads runs' inputs, keeping what it read by run id. */
export class RunInputs {
  readonly #kept = new Map<string, Promise<RunInput>>();

  constructor(private readonly client: Client) {}

  /** The run's input as a row shows it; `{}` when it cannot be read (encrypted without the codec, or gone). */
  of(workflowId: string, runId: string): Promise<RunInput> {
    let input = this.#kept.get(runId);
    if (!input) {
      input = this.#read(workflowId, runId).catch(() => ({}));
      this.#kept.set(runId, input);
      if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    }
    return input;
  }

  async #read(workflowId: string, runId: string): Promise<RunInput> {
    let started = (await firstEvent(this.client, workflowId, runId)).workflowExecutionStartedEventAttributes!;
    // A run continued as new carries its state, not its input: the chain's first run has it.
    const first = started.firstExecutionRunId;
    if (started.continuedExecutionRunId && first)
      started = (await firstEvent(this.client, workflowId, first)).workflowExecutionStartedEventAttributes!;
    const { decodeArrayFromPayloads } = await loadPayloadDecoding();
    const [args] = (await decodeArrayFromPayloads(
      this.client.options.loadedDataConverter,
      started.input?.payloads ?? [],
    )) as Partial<AgentRunArgs>[];
    const user = args?.messages?.find((message) => message.role === "user");
    const text = user ? textOf(user.content) : "";
    return {
      ...(typeof args?.agent === "string" ? { agent: args.agent } : {}),
      ...(text ? { firstWords: firstWordsOf(text) } : {}),
    };
  }
}
