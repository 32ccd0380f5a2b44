/**
 * Memory across sessions: `ai.memory()` and its checks, the stores (`memoryStores.pglite()`,
 * `memoryStores.postgres()`), the contract between them and the memory activities, and their
 * errors. Nothing heavy loads with it: the AI SDK's `embedMany` and the stores' drivers load on first use.
 */
export type {
  MemoryMessage,
  MemoryMessageWrite,
  MemoryStore,
  RecallQuery,
  RecalledMessage,
  WorkingMemoryDocument,
  WorkingMemoryWrite,
} from "./memory-store.js";
export { memoryStores, type PGliteMemoryOptions, type PostgresMemoryOptions } from "./stores.js";
export { MemoryStoreMissingError, MemoryStoreUnavailableError, MemoryWriteError } from "./errors.js";
export { SCHEMA_VERSION } from "./schema.js";
export {
  defineMemory,
  Memory,
  type MemoryOptions,
  type RecallOptions,
  type WorkingMemoryOptions,
} from "./define-memory.js";
export { checkUser, MAX_USER_ID_LENGTH } from "./user-id.js";
export { embedTexts } from "./embed-texts.js";
export { initialWorkingMemory, updateWorkingMemory, type WorkingMemoryUpdate } from "./working-memory.js";
export { mergeWorkingMemory } from "./merge.js";
