import { Context } from "@temporalio/activity";

/** The details each running activity heartbeated last: keep-alive heartbeats repeat them rather than clearing them. */
const lastDetails = new WeakMap<Context, unknown>();

/** Heartbeats `details` for the current activity; its keep-alive heartbeats carry them from now on. */
export function heartbeatWith(details: unknown): void {
  const context = Context.current();
  lastDetails.set(context, details);
  context.heartbeat(details);
}

/**
 * Wraps an activity so the worker heartbeats it while it runs (a third of its heartbeat timeout
 * apart, or `maxEveryMs` when that is shorter): a live worker keeps its attempt, a crashed one is
 * retried elsewhere within the timeout. A heartbeat is also how a cancellation reaches the
 * activity, so `maxEveryMs` bounds how long a stop waits for an activity that is silent.
 */
export function keepAlive<A extends unknown[], R>(
  activity: (...args: A) => Promise<R>,
  maxEveryMs = Infinity,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const context = Context.current();
    const timeout = context.info.heartbeatTimeoutMs;
    const every = timeout ? Math.max(100, Math.min(timeout / 3, maxEveryMs)) : undefined;
    const beat = () => context.heartbeat(lastDetails.get(context));
    const timer = every ? setInterval(beat, every) : undefined;
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}
