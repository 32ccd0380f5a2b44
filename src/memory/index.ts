/**
 * Memory across sessions: `ai.memory()`, its stores and what the worker's memory activities use.
 * The definitions load nothing heavy: the AI SDK's `embedMany` and the stores' drivers load on first use.
 */
export { defineMemory, Memory, type MemoryOptions, type RecallOptions, type WorkingMemoryOptions } from "./define-memory.js";
export { checkUser, MAX_USER_ID_LENGTH } from "./user-id.js";
export { embedTexts } from "./embed-texts.js";
export { initialWorkingMemory, updateWorkingMemory, type WorkingMemoryUpdate } from "./working-memory.js";
export { mergeWorkingMemory } from "./merge.js";
export type {
  MemoryMessage,
  MemoryMessageWrite,
  MemoryStore,
  RecallQuery,
  RecalledMessage,
  WorkingMemoryDocument,
  WorkingMemoryWrite,
} from "./memory-store.js";
