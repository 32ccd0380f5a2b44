import { Context } from "@temporalio/activity";

/**
 * Wraps an activity so the worker heartbeats it while it runs (a third of its heartbeat timeout
 * apart): a live worker keeps its attempt, a crashed one is retried elsewhere within the timeout.
 */
export function keepAlive<A extends unknown[], R>(activity: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const context = Context.current();
    const timeout = context.info.heartbeatTimeoutMs;
    const timer = timeout ? setInterval(() => context.heartbeat(), Math.max(100, timeout / 3)) : undefined;
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}
