/**
 * Memory as the workflow sees it: what the agent's memory recalls (plain data, recorded in the
 * run's history by the `memory.recall` activity), what it remembers after a turn, and the system
 * message that gives both to the model. Workflow-safe.
 */

/** The plain-data view of an agent's `memory` (`ai.memory()`), from `agent.describe`. */
export interface MemorySpec {
  /** The agent keeps a working memory document (`workingMemory`), updated by `update_working_memory`. */
  workingMemory: boolean;
  /** Semantic recall: how many matches, neighbours on each side, and from where. */
  recall: { topK: number; messageRange: number; scope: "user" | "session" };
}

/** A message recalled from the user's past conversations, as the run recorded it. */
export interface RecalledMemoryMessage {
  session: string;
  run: string;
  turn: number;
  index: number;
  role: "user" | "assistant";
  text: string;
  createdAt: string;
  /** Cosine similarity to the input (a neighbour carries its match's). */
  score: number;
  /** A neighbour of a match (`messageRange`), not a match. */
  neighbour: boolean;
}

/** The user's working memory document as the model saw it. */
export interface SeenWorkingMemory {
  /** Markdown text (a template), or a JSON object (a schema). */
  content: unknown;
  /** The document's version in the store (0: none stored yet). */
  version: number;
}

/** Input of the `memory.recall` activity: the user's working memory and the messages similar to `input`. */
export interface MemoryRecallInput {
  agent: string;
  user: string;
  /** The turn's input text, embedded for the search. */
  input: string;
  /** The turn (0 for a run outside a session). */
  turn: number;
}

/** Output of the `memory.recall` activity: recorded in the history, so replay, fork and playback need no store. */
export interface MemoryRecallOutput {
  /** The working memory, when the agent keeps one (`version` 0 and the template when none is stored yet). */
  workingMemory?: SeenWorkingMemory;
  recalled: RecalledMemoryMessage[];
}

/** A message of a turn to remember: its place in the turn is its key with the run and the turn. */
export interface MemoryMessageToRemember {
  index: number;
  role: "user" | "assistant";
  text: string;
}

/** Input of the `memory.remember` activity: the turn's messages, embedded and stored once each. */
export interface MemoryRememberInput {
  agent: string;
  user: string;
  turn: number;
  messages: MemoryMessageToRemember[];
  /** When the turn ended (ISO 8601, the workflow's clock). */
  at: string;
}

/** What the `memory.remember` activity did: messages stored now (0 when a retry found them stored). */
export interface MemoryRememberOutput {
  stored: number;
}

/** The name of the working memory's built-in tool. */
export const WORKING_MEMORY_TOOL = "update_working_memory";

/** The first line of the system message that gives memory to the model. */
export const MEMORY_MESSAGE_HEADING = "Memory of this user, from earlier conversations.";

/**
 * The system message that gives the model the user's working memory and what was recalled, saying
 * that the recalled messages are recalled (not part of this conversation). Undefined when there is nothing to give.
 */
export function memoryMessageText(recall: MemoryRecallOutput): string | undefined {
  const parts: string[] = [];
  const working = recall.workingMemory;
  if (working && working.content !== undefined && working.content !== "") {
    const text = typeof working.content === "string" ? working.content : JSON.stringify(working.content, null, 2);
    parts.push(`Working memory (keep it current with the update_working_memory tool):\n${text}`);
  }
  if (recall.recalled.length > 0) {
    const lines = recall.recalled.map((m) => `[${m.createdAt.slice(0, 10)}] ${m.role}: ${m.text}`);
    parts.push(
      `Recalled messages from earlier conversations (recalled, not said in this conversation):\n${lines.join("\n")}`,
    );
  }
  return parts.length ? `${MEMORY_MESSAGE_HEADING}\n\n${parts.join("\n\n")}` : undefined;
}
