/** The throughput benchmark's wait for a run's result, bounded by the level's deadline. */
import type { Client } from "@temporalio/client";

/**
 * `wait` (for a run's result), given up at the deadline: every call the client makes in it has the
 * deadline as its gRPC deadline, so no long poll or retry of it outlives the level (one firing
 * after the connection closed would crash the benchmark). Not an `AbortSignal`: the client adds a
 * listener to it for every call it makes and never removes one (a result's long polls of a
 * minutes-long run are more than 10: a `MaxListenersExceededWarning` each).
 */
export function withDeadline<T>(client: Client, deadline: number, wait: () => Promise<T>): Promise<T> {
  return client.withDeadline(deadline, wait).catch((error: unknown) => {
    if (Date.now() < deadline) throw error;
    throw new Error("not finished by the benchmark's deadline", { cause: error });
  });
}
