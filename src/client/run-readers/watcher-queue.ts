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
  | { type: "failed"; error: unknown };

/**
 * A watcher's items not read yet. A newer partial answer of the same attempt replaces one not
 * read yet (it holds the same text and more), so a slow watcher holds at most one.
 */
export class WatcherQueue {
  readonly #items: ReaderItem[] = [];
  #wake: (() => void) | undefined;

  /** Adds an item for the watcher, waking it if it waits. */
  push(item: ReaderItem): void {
    const last = this.#items.at(-1);
    if (
      item.type === "partial" &&
      last?.type === "partial" &&
      last.partial.trip === item.partial.trip &&
      last.partial.attempt === item.partial.attempt
    )
      this.#items[this.#items.length - 1] = item;
    else this.#items.push(item);
    this.#wake?.();
    this.#wake = undefined;
  }

  /** The next item, waiting for one. */
  async take(): Promise<ReaderItem> {
    while (this.#items.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#items.shift()!;
  }
}
