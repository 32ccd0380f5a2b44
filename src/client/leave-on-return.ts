/**
 * An async iterator whose `return()` takes effect at once. An async generator cannot be returned
 * while it waits (its `return()` waits behind the pending `next()`), so a stream cancelled while
 * it waits for a run's next event would hold its watcher until that event, days on an idle run.
 */

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The iterator `start` makes from a signal, with a `return()` that aborts the signal at once (the
 * sources the iterator reads end on it, and a pending `next()` then resolves done). The signal is
 * aborted too when the iterator ends or throws, so nothing it opened outlives it.
 */
export function leaveOnReturn<T>(start: (signal: AbortSignal) => AsyncIterator<T>): AsyncIterator<T> {
  const controller = new AbortController();
  const inner = start(controller.signal);
  return {
    async next() {
      if (controller.signal.aborted) return DONE;
      try {
        const result = await inner.next();
        if (result.done) controller.abort();
        return controller.signal.aborted ? DONE : result;
      } catch (error) {
        controller.abort();
        throw error;
      }
    },
    async return() {
      controller.abort();
      await inner.return?.();
      return DONE;
    },
  };
}
