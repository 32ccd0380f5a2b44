/** The typed errors of memory stores: a store that cannot be reached, a store's package not installed, a bad write. */
import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/**
 * A memory store could not be reached or opened: PostgreSQL refused or dropped the connection, or
 * PGlite could not open its data directory. Retryable: a memory activity that throws it is retried,
 * and the run waits. `target` is the store's URL without its password, or PGlite's data directory.
 */
export class MemoryStoreUnavailableError extends DurableAgentError {
  override readonly name = "MemoryStoreUnavailableError";
  /** True for a `MemoryStoreUnavailableError`, even from another copy of the package. */
  static override isInstance = errorGuard<MemoryStoreUnavailableError>("MemoryStoreUnavailableError");
  /** Always true: the store may come back. */
  readonly retryable = true;
  constructor(
    readonly store: string,
    readonly target: string,
    cause: unknown,
  ) {
    super(
      `Cannot reach the ${store} memory store at ${target}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        (store === "postgres"
          ? "Check that PostgreSQL runs there and accepts this user."
          : "Check the data directory."),
      { cause },
    );
  }
}

/** A memory store was asked for, but its optional package (`pkg`) is not installed. */
export class MemoryStoreMissingError extends DurableAgentError {
  override readonly name = "MemoryStoreMissingError";
  /** True for a `MemoryStoreMissingError`, even from another copy of the package. */
  static override isInstance = errorGuard<MemoryStoreMissingError>("MemoryStoreMissingError");
  constructor(
    readonly pkg: string,
    cause: unknown,
  ) {
    super(`This memory store needs the \`${pkg}\` package, which is not installed: \`npm install ${pkg}\`.`, { cause });
  }
}

/** A message or working memory given to a memory store is malformed (`field` names what, `problem` how): nothing was stored. */
export class MemoryWriteError extends DurableAgentError {
  override readonly name = "MemoryWriteError";
  /** True for a `MemoryWriteError`, even from another copy of the package. */
  static override isInstance = errorGuard<MemoryWriteError>("MemoryWriteError");
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Invalid memory write \`${field}\`: ${problem}`);
  }
}
