/**
 * An async iterator that lets go at once. A generator parked in an `await` cannot be stopped from
 * outside: its `return()` waits for its next `yield`. So the generator here is made with an abort
 * signal that every wait in it takes, and `return()` (or the caller's `signal`) aborts it first:
 * its pending wait rejects, the generator returns (its `finally` blocks release what it holds),
 * and a pending `next()` resolves as done.
 */
import { StreamOverflowError } from "../../errors.js";

/**
 * The iterator over `make(signal)`: `return()` and `outer` abort `signal`. A `StreamOverflowError`
 * it throws names the `id` of the last value given (`from` before the first: where it started).
 */
export function releasable<T>(
  make: (signal: AbortSignal) => AsyncGenerator<T>,
  outer?: AbortSignal,
  from?: string,
): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(outer?.reason);
  if (outer?.aborted) abort();
  else outer?.addEventListener("abort", abort, { once: true });
  const release = () => outer?.removeEventListener("abort", abort);
  const inner = make(controller.signal);
  let lastId = from;
  const settle = async (step: Promise<IteratorResult<T>>): Promise<IteratorResult<T>> => {
    try {
      const result = await step;
      if (result.done) release();
      else lastId = idOf(result.value) ?? lastId;
      return result;
    } catch (error) {
      release();
      if (error instanceof StreamOverflowError)
        throw new StreamOverflowError(error.workflowId, error.maxBufferedEvents, lastId);
      throw error;
    }
  };
  return {
    next: () => settle(inner.next()),
    return: (value?: unknown) => {
      controller.abort();
      release();
      return inner.return(value as never);
    },
    throw: (error?: unknown) => {
      controller.abort();
      release();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** What `wait()` gives, or undefined when it failed because `signal` aborted (a wait that let go). */
export async function unlessAborted<T>(signal: AbortSignal, wait: () => Promise<T>): Promise<T | undefined> {
  try {
    return await wait();
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}

/** A stream event's `id`, if the value is one. */
function idOf(value: unknown): string | undefined {
  const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id : undefined;
}
