/**
 * What every error class's `isInstance()` checks: a marker shared through the global symbol
 * registry and the error's literal `name`. Both hold across copies of the package, bundles
 * (minified too) and realms, where `instanceof` and a class's own name do not.
 */

/** Set on every error of this library. */
export const ERROR_MARKER = Symbol.for("durable-agent.error");

/** True for an error of this library. */
export function isLibraryError(error: unknown): error is Error & { readonly [ERROR_MARKER]: true } {
  return typeof error === "object" && error !== null && ERROR_MARKER in error;
}

/** An `isInstance` check: an error of this library whose `name` is one of `names` (the class's own, then its subclasses'). */
export function errorGuard<T extends Error>(...names: string[]): (error: unknown) => error is T {
  return (error: unknown): error is T => isLibraryError(error) && names.includes(error.name);
}

/**
 * An `isInstance` check for an internal error class that is not one of the library's typed errors
 * (a model stream's cut, a CLI usage error): an error whose literal `name` is `name`.
 */
export function namedErrorGuard<T extends Error>(name: string): (error: unknown) => error is T {
  return (error: unknown): error is T =>
    typeof error === "object" && error !== null && "message" in error && (error as Error).name === name;
}
