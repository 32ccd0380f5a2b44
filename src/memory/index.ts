/**
 * Memory across sessions: the stores (`memoryStores.pglite()`, `memoryStores.postgres()`), the
 * contract between them and the memory activities, and their errors.
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
