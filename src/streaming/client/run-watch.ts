/**
 * Run readers shared by the watchers of a run in one process: however many streams of a run are
 * open here (tabs of one chat, say), Temporal sees one reader. Readers are kept per client
 * (which names the server and namespace) and workflow id, counted by their watchers, and stop
 * when the last watcher leaves.
 */
import type { Client } from "@temporalio/client";
import { SharedRunReader } from "./shared-run-reader.js";
import type { DurableEvent } from "./durable-tail.js";
import type { WatcherQueue } from "./watcher-queue.js";

export { MAX_BUFFERED_EVENTS, type ReaderItem } from "./watcher-queue.js";

const readers = new WeakMap<Client, Map<string, SharedRunReader>>();

/** One watcher of a run: its items in order, its catch-up (when it starts before the reader's kept events), and how to leave. */
export interface RunWatch {
  readonly queue: WatcherQueue;
  /** The durable events from the watcher's offset that the shared reader no longer holds (none when it holds them all); `signal` aborts the read. */
  catchUp(signal: AbortSignal): Promise<DurableEvent[]>;
  /** Stops watching; the run's reader stops when its last watcher leaves, its in-flight reads aborted. */
  leave(): void;
}

/**
 * Watches the run of `workflowId` from `fromOffset`, through this process's reader of it (started
 * if there is none). A watcher that falls `limit` durable events behind leaves the reader (its
 * queue ends with `overflow`).
 */
export function watchRun(client: Client, workflowId: string, fromOffset: number, limit: number): RunWatch {
  let byWorkflow = readers.get(client);
  if (!byWorkflow) readers.set(client, (byWorkflow = new Map()));
  const runs = byWorkflow;
  let reader = runs.get(workflowId);
  if (!reader) {
    reader = new SharedRunReader(client, workflowId, fromOffset, (done) => {
      if (runs.get(workflowId) === done) runs.delete(workflowId);
    });
    runs.set(workflowId, reader);
  }
  const shared = reader;
  const { queue, catchUpFrom } = shared.join(fromOffset, limit);
  return {
    queue,
    catchUp: (signal) => (catchUpFrom === undefined ? Promise.resolve([]) : shared.catchUp(catchUpFrom, signal)),
    leave: () => shared.leave(queue),
  };
}
