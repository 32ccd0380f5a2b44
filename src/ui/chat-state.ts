import type { UIMessageChunk } from "ai";

/**
 * A watcher's find, held until the chat's `reconnectToStream` takes it: what the consumer gets
 * first, what the server sent, and the rest of the server's stream.
 */
export interface ParkedAnswer {
  /** The chunks the consumer gets first: the message so far (when the answer continues it) and the first new chunk. */
  prefix: UIMessageChunk[];
  /** The chunks read of the server's stream so far, to resume it if it is cut. */
  known: UIMessageChunk[];
  /** The server's stream after them. */
  rest: ReadableStream<UIMessageChunk>;
}

/**
 * What the transport knows of one chat: the chunks of its last message as the consumer has them (the
 * ledger), how many of its streams are open, and a watcher's find waiting to be taken.
 */
export class ChatState {
  /** The id of the message the ledger holds. */
  messageId: string | undefined;
  /** The chunks of that message that the consumer got, in order. */
  ledger: UIMessageChunk[] = [];
  /** Counts `reconnectToStream` calls, so an abort of one that a newer call replaced is not taken for a stop. */
  resumeCalls = 0;
  /** The watcher's request in flight, aborted when a stream of the chat opens. */
  watcherRequest: AbortController | undefined;
  private parked: ParkedAnswer | undefined;
  private open = 0;
  private waiters = new Set<() => void>();

  /**
   * Records a chunk the consumer got. `useChat` resets a message at a resume's first `start` and at a
   * `start` with another id, and adds to it in a POST's answer: the ledger does the same.
   */
  record(chunk: UIMessageChunk, resetsAtStart: boolean): void {
    if (chunk.type === "start" && (resetsAtStart || chunk.messageId !== this.messageId)) {
      this.messageId = chunk.messageId;
      this.ledger = [];
    }
    this.ledger.push(chunk);
  }

  /** A stream of the chat opens: a watcher stands back, and what it found is dropped. */
  opened(): void {
    this.open++;
    this.watcherRequest?.abort();
    this.discardParked();
  }

  /** A stream of the chat is over. */
  closed(): void {
    this.open--;
    this.wakeIfIdle();
  }

  /** Resolves when no stream of the chat is open and nothing waits to be taken. */
  async idle(signal: AbortSignal): Promise<void> {
    while ((this.open > 0 || this.parked) && !signal.aborted) {
      await new Promise<void>((resolve) => {
        this.waiters.add(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }

  park(answer: ParkedAnswer): void {
    this.discardParked();
    this.parked = answer;
  }

  /** Takes a watcher's find, if there is one. */
  takeParked(): ParkedAnswer | undefined {
    const parked = this.parked;
    this.parked = undefined;
    return parked;
  }

  discardParked(): void {
    const parked = this.takeParked();
    if (!parked) return;
    void parked.rest.cancel().catch(() => undefined);
    this.wakeIfIdle();
  }

  private wakeIfIdle(): void {
    if (this.open > 0) return;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}
