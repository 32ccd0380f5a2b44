/**
 * `ai.memory({ store, embedder, workingMemory?, recall? })`: an agent's memory of its users, given
 * to `ai.agent({ memory })`. The definition only checks and holds its options; the worker's memory
 * activities (src/activities/memory-activities.ts) embed and read the store with it.
 */
import type { EmbeddingModel } from "ai";
import type { z } from "zod";
import { checkKnownKeys, type KnownKeys } from "../options/known-keys.js";
import { checkCount, fail } from "../options/option-checks.js";
import type { MemorySpec } from "../core/memory.js";
import type { MemoryMessage, MemoryStore, WorkingMemoryDocument } from "./memory-store.js";
import { checkUser } from "./user-id.js";

/** The user's working memory: a markdown template the model fills in, or a zod schema for a typed object. */
export type WorkingMemoryOptions = { template: string } | { schema: z.ZodType };

/** Semantic recall: before the first model call of each turn, the past messages most similar to the input. */
export interface RecallOptions {
  /** How many matches. Default 3. */
  topK?: number;
  /** Neighbours taken on each side of a match, within its session. Default 1. */
  messageRange?: number;
  /** `"user"` (default): the user's other sessions; `"session"`: this session only. */
  scope?: "user" | "session";
}

/** Options of `ai.memory()`. */
export interface MemoryOptions {
  /** Where memory lives: `ai.memory.pglite({ dataDir })` or `ai.memory.postgres({ url })`. */
  store: MemoryStore;
  /** Any AI SDK embedding model (e.g. `openai.embedding("text-embedding-3-small")`): used on the worker only. */
  embedder: EmbeddingModel;
  /** A per-user document given to the model with the instructions and updated by its `update_working_memory` tool. Default: none. */
  workingMemory?: WorkingMemoryOptions;
  /** Semantic recall's settings (see `RecallOptions` for the defaults). */
  recall?: RecallOptions;
}

const MEMORY_OPTION_KEYS = { store: true, embedder: true, workingMemory: true, recall: true } as const satisfies Record<
  keyof MemoryOptions,
  true
> &
  KnownKeys;
const RECALL_KEYS = { topK: true, messageRange: true, scope: true } as const satisfies Record<
  keyof RecallOptions,
  true
> &
  KnownKeys;
const STORE_METHODS = ["open", "addMessages", "recall", "getWorkingMemory", "setWorkingMemory", "forget", "inspect"];
const CALL = "ai.memory()";

/** An agent's memory of its users. Create with `ai.memory()`; give it to `ai.agent({ memory })`. */
export class Memory {
  /** Where memory lives. */
  readonly store: MemoryStore;
  /** The embedding model (worker side). */
  readonly embedder: EmbeddingModel;
  /** The working memory's template or schema, if any. */
  readonly workingMemory: WorkingMemoryOptions | undefined;
  /** The plain-data view the workflow reads (through `agent.describe`). */
  readonly spec: MemorySpec;
  #opened: Promise<unknown> | undefined;

  constructor(options: MemoryOptions) {
    validateMemoryOptions(options);
    this.store = options.store;
    this.embedder = options.embedder;
    this.workingMemory = options.workingMemory;
    const recall = options.recall ?? {};
    this.spec = {
      workingMemory: options.workingMemory !== undefined,
      recall: { topK: recall.topK ?? 3, messageRange: recall.messageRange ?? 1, scope: recall.scope ?? "user" },
    };
  }

  /** The store, opened (migrated) once; a failed open is tried again on the next call. */
  async opened(): Promise<MemoryStore> {
    const opening = (this.#opened ??= this.store.open());
    try {
      await opening;
    } catch (error) {
      if (this.#opened === opening) this.#opened = undefined;
      throw error;
    }
    return this.store;
  }

  /** Deletes the user's working memory and stored messages: a run started after this recalls nothing of them. */
  async forget({ user }: { user: string }): Promise<{ messages: number; workingMemory: boolean }> {
    checkUser(user);
    return (await this.opened()).forget(user);
  }

  /** What is stored for the user: the working memory and the messages. */
  async inspect({
    user,
  }: {
    user: string;
  }): Promise<{ workingMemory?: WorkingMemoryDocument; messages: MemoryMessage[] }> {
    checkUser(user);
    return (await this.opened()).inspect(user);
  }
}

/** Defines an agent's memory (`ai.memory()`); throws `AgentOptionsError` naming the first bad field. */
export function defineMemory(options: MemoryOptions): Memory {
  return new Memory(options);
}

function validateMemoryOptions(options: MemoryOptions): void {
  if (!options || typeof options !== "object") fail("memory", `${CALL} needs an options object { store, embedder }`);
  checkKnownKeys(options, MEMORY_OPTION_KEYS, CALL, "memory");
  const store = options.store as unknown as Record<string, unknown> | undefined;
  const missing = STORE_METHODS.filter((method) => typeof store?.[method] !== "function");
  if (!store || typeof store !== "object" || missing.length)
    fail("memory.store", `must be a memory store, e.g. ai.memory.pglite({ dataDir }) (missing ${missing.join(", ")})`);
  const embedder = options.embedder as unknown;
  const isModel =
    typeof embedder === "string" ||
    (typeof embedder === "object" &&
      embedder !== null &&
      typeof (embedder as { doEmbed?: unknown }).doEmbed === "function");
  if (!isModel)
    fail("memory.embedder", 'must be an AI SDK embedding model, e.g. openai.embedding("text-embedding-3-small")');
  validateWorkingMemory(options.workingMemory);
  const recall = options.recall;
  if (recall === undefined) return;
  if (typeof recall !== "object" || recall === null)
    fail("memory.recall", "must be an object { topK?, messageRange?, scope? }");
  checkKnownKeys(recall, RECALL_KEYS, CALL, "memory.recall");
  checkCount("memory.recall.topK", recall.topK, 1);
  if (recall.topK !== undefined && recall.topK > 100)
    fail("memory.recall.topK", `must be at most 100 (got ${recall.topK})`);
  checkCount("memory.recall.messageRange", recall.messageRange, 0);
  if (recall.messageRange !== undefined && recall.messageRange > 20)
    fail("memory.recall.messageRange", `must be at most 20 (got ${recall.messageRange})`);
  if (recall.scope !== undefined && recall.scope !== "user" && recall.scope !== "session")
    fail("memory.recall.scope", `must be "user" or "session" (got ${JSON.stringify(recall.scope)})`);
}

function validateWorkingMemory(working: WorkingMemoryOptions | undefined): void {
  if (working === undefined) return;
  const hasTemplate = typeof working === "object" && working !== null && "template" in working;
  const hasSchema = typeof working === "object" && working !== null && "schema" in working;
  if (hasTemplate === hasSchema)
    fail("memory.workingMemory", "must be { template: string } or { schema: a zod object schema }");
  if (hasTemplate && typeof working.template !== "string")
    fail("memory.workingMemory.template", "must be a markdown string");
  if (hasSchema && typeof (working.schema as { safeParse?: unknown })?.safeParse !== "function")
    fail("memory.workingMemory.schema", "must be a zod (v4) schema, e.g. z.object({ ... })");
}
