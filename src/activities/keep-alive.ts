import { Context } from "@temporalio/activity";

/** The details each running activity heartbeated last, and when: keep-alive heartbeats repeat them rather than clearing them. */
const lastDetails = new WeakMap<Context, { details: unknown; at: number }>();

/** Heartbeats `details` for the current activity; its keep-alive heartbeats carry them from now on. */
export function heartbeatWith(details: unknown): void {
  const context = Context.current();
  lastDetails.set(context, { details, at: Date.now() });
  context.heartbeat(details);
}

/**
 * Wraps an activity so the worker heartbeats it while it runs (a third of its heartbeat timeout
 * apart, or `maxEveryMs` when that is shorter): a live worker keeps its attempt, a crashed one is
 * retried elsewhere within the timeout. A heartbeat is also how a cancellation reaches the
 * activity, so `maxEveryMs` bounds how long a stop waits for an activity that is silent. A
 * keep-alive heartbeat comes that long after the activity's last heartbeat of either kind: none
 * while `heartbeatWith` sends its own often enough (a streamed answer's text).
 */
export function keepAlive<A extends unknown[], R>(
  activity: (...args: A) => Promise<R>,
  maxEveryMs = Infinity,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const context = Context.current();
    const timeout = context.info.heartbeatTimeoutMs;
    const every = timeout ? Math.max(100, Math.min(timeout / 3, maxEveryMs)) : undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (every) {
      let lastKeptAlive = Date.now();
      const beat = () => {
        const last = lastDetails.get(context);
        const now = Date.now();
        const since = now - Math.max(lastKeptAlive, last?.at ?? 0);
        if (since >= every) {
          context.heartbeat(last?.details);
          lastKeptAlive = now;
        }
        timer = setTimeout(beat, since >= every ? every : every - since);
      };
      timer = setTimeout(beat, every);
    }
    try {
      return await activity(...args);
    } finally {
      clearTimeout(timer);
    }
  };
}
