import type { Client } from "@temporalio/client";

/**
 * Runs `call` (a Temporal client call) so that `signal` cancels it. The SDK adds a listener to the
 * signal it is given for every call and never removes it, so each call gets a signal of its own,
 * linked to `signal` for the call's length: a reader making thousands of calls keeps no listeners.
 */
export async function abortableCall<T>(client: Client, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort();
  signal.addEventListener("abort", abort, { once: true });
  try {
    return await client.connection.withAbortSignal(own.signal, call);
  } finally {
    signal.removeEventListener("abort", abort);
  }
}
