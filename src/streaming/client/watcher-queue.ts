/** What a shared reader hands each of its watchers, in order, and the queue that holds it until the watcher reads it. */
import type { PartialAnswer, StreamedRunEvent } from "../../core/run-events.js";

/** One thing a run's reader learned. */
export type ReaderItem =
  /** A durable event (a `run.finished` carries the whole result). */
  | { type: "durable"; event: StreamedRunEvent }
  /**
   * The answer in flight. `confirmed`: the durable events were read after this attempt showed
   * up, so a watcher that has read them all and not seen the attempt's `trip.retry` started after it.
   */
  | { type: "partial"; partial: PartialAnswer; confirmed: boolean }
  /** The run closed and its last durable events were handed out: the watcher ends with the run's result. */
  | { type: "closed" }
  /** The reader gave up: the watcher throws this. */
  | { type: "failed"; error: unknown }
  /** The watcher fell `limit` durable events behind and left the reader: its stream ends with a resumable cursor. */
  | { type: "overflow"; limit: number };

/** Durable events a watcher may fall behind by default before it lets go of the run (`maxBufferedEvents`). */
export const MAX_BUFFERED_EVENTS = 1_000;

/**
 * A watcher's items not read yet, bounded. A newer partial answer of the same attempt replaces one
 * not read yet (it holds the same text and more), so partial answers coalesce; durable events past
 * `limit` are not kept: the queue ends with an `overflow` item and calls `onOverflow` (the watcher
 * leaves the reader), and the watcher resumes from its last event when it reads on.
 */
export class WatcherQueue {
  readonly #items: ReaderItem[] = [];
  #durable = 0;
  #overflowed = false;
  #wake: (() => void) | undefined;

  constructor(
    private readonly limit = MAX_BUFFERED_EVENTS,
    private readonly onOverflow: () => void = () => undefined,
  ) {}

  /** Adds an item for the watcher, waking it if it waits. */
  push(item: ReaderItem): void {
    if (this.#overflowed) return;
    const last = this.#items.at(-1);
    if (
      item.type === "partial" &&
      last?.type === "partial" &&
      last.partial.trip === item.partial.trip &&
      last.partial.attempt === item.partial.attempt
    )
      this.#items[this.#items.length - 1] = item;
    else if (item.type === "durable" && this.#durable >= this.limit) {
      this.#overflowed = true;
      this.#items.push({ type: "overflow", limit: this.limit });
      queueMicrotask(this.onOverflow);
    } else {
      if (item.type === "durable") this.#durable++;
      this.#items.push(item);
    }
    this.#wake?.();
  }

  /** The next item, waiting for one; rejects with the signal's reason once `signal` aborts (items waiting or not). */
  async take(signal?: AbortSignal): Promise<ReaderItem> {
    signal?.throwIfAborted();
    while (this.#items.length === 0) {
      await new Promise<void>((resolve, reject) => {
        const abort = () => {
          this.#wake = undefined;
          reject(signal!.reason);
        };
        this.#wake = () => {
          signal?.removeEventListener("abort", abort);
          this.#wake = undefined;
          resolve();
        };
        signal?.addEventListener("abort", abort, { once: true });
      });
    }
    const item = this.#items.shift()!;
    if (item.type === "durable") this.#durable--;
    return item;
  }
}
