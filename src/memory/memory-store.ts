/**
 * The contract between `ai.memory()`'s worker-side activities and its stores (`ai.memory.pglite()`,
 * `ai.memory.postgres()`). Every write is idempotent on its key, so an activity retried after a
 * worker crash stores nothing twice.
 */
import type { RecalledMemoryMessage } from "../core/memory.js";

/** A message of a user's past conversation, as stored. */
export interface MemoryMessage {
  /** Whose memory: the run's `user`. */
  user: string;
  /** The session (its workflow id), or the run's workflow id for a run outside a session. */
  session: string;
  /** The workflow id of the run that said it. */
  run: string;
  /** The turn of the session (0 for a run outside a session). */
  turn: number;
  /** The message's place in its turn. `(run, turn, index)` is its key. */
  index: number;
  /** Who said it. */
  role: "user" | "assistant";
  /** Its text. */
  text: string;
  /** When the run said it (ISO 8601). */
  createdAt: string;
}

/** A message to store, with its embedding. */
export interface MemoryMessageWrite extends MemoryMessage {
  /** The embedder's vector of `text`. */
  embedding: number[];
}

/** A recalled message: a match, or a neighbour of one (`messageRange`): the run's record of it, with whose it is. */
export interface RecalledMessage extends RecalledMemoryMessage {
  /** Whose memory: the run's `user`. */
  user: string;
}

/** What `recall` searches. */
export interface RecallQuery {
  user: string;
  /** The embedding of the turn's input. */
  embedding: number[];
  /** How many matches. */
  topK: number;
  /** Neighbours taken on each side of a match, within its session. */
  messageRange: number;
  /** Only this session (`scope: "session"`); absent: all the user's sessions. */
  session?: string;
  /** Leave out messages of this run (the run asking). */
  excludeRun?: string;
}

/** A user's working memory document. */
export interface WorkingMemoryDocument {
  /** The document: markdown text (a template), or a JSON object (a schema). */
  content: unknown;
  /** Bumped by each write; 0 is "none yet". */
  version: number;
  /** When it was last written (ISO 8601). */
  updatedAt: string;
}

/** The outcome of a versioned working memory write. */
export type WorkingMemoryWrite = { ok: true; version: number } | { ok: false; current: WorkingMemoryDocument };

/** Where memory lives: PGlite in-process, or any PostgreSQL. */
export interface MemoryStore {
  /** `"pglite"` or `"postgres"`. */
  readonly kind: string;
  /** Migrates (once, even with two workers starting together) and says which search is in use. */
  open(): Promise<{ search: "pgvector" | "exact" }>;
  /** Stores messages; one already stored under its `(run, turn, index)` is left as it is. */
  addMessages(messages: MemoryMessageWrite[]): Promise<void>;
  /** The `topK` messages most similar to the query, each with its neighbours, in session order. */
  recall(query: RecallQuery): Promise<RecalledMessage[]>;
  /** The user's working memory, if any. */
  getWorkingMemory(user: string): Promise<WorkingMemoryDocument | undefined>;
  /**
   * Writes the document if the stored version is `expectedVersion` (0: none stored); else returns
   * the current one. A write already made under `key` (a retried activity) returns its version.
   */
  setWorkingMemory(user: string, content: unknown, expectedVersion: number, key: string): Promise<WorkingMemoryWrite>;
  /** Deletes the user's working memory and messages. */
  forget(user: string): Promise<{ messages: number; workingMemory: boolean }>;
  /** What is stored for the user. */
  inspect(user: string): Promise<{ workingMemory?: WorkingMemoryDocument; messages: MemoryMessage[] }>;
  /** Closes its connections. */
  close(): Promise<void>;
}
