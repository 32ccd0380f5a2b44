import { APICallError, type UIMessageChunk } from "ai";
import { delayBefore, sleep, type ReconnectOptions } from "./backoff.js";
import { LAST_CHUNKS } from "./last-chunks.js";
import { ReplayFilter } from "./replay-filter.js";

/** What {@link followStream} follows, and how it resumes. */
export interface FollowOptions {
  /** The stream as first opened (a POST's answer, or a resume). */
  first: ReadableStream<UIMessageChunk>;
  /** Chunks the consumer gets before `first`'s: a watcher's catch-up of the message so far. */
  prefix?: readonly UIMessageChunk[];
  /** What is already known of the server's answer that `first` goes on with (what a watcher read of it). */
  known?: readonly UIMessageChunk[];
  /** Opens the resume route: the answer in flight replayed from its `start`, or `null` when none is (204). */
  resume: (signal: AbortSignal) => Promise<ReadableStream<UIMessageChunk> | null>;
  /**
   * The chunks that end the consumer's message as the chat's history has it, for an answer that
   * ended while the connection was down (the resume finds none in flight, or another message's);
   * `undefined` when the history does not have it.
   */
  settle: (signal: AbortSignal) => Promise<UIMessageChunk[] | undefined>;
  /** The consumer's signal: aborting it ends the stream (a stop, told apart by the transport). */
  signal: AbortSignal | undefined;
  reconnect: Required<ReconnectOptions>;
  /** Called with every chunk the consumer gets, in order. */
  onChunk: (chunk: UIMessageChunk) => void;
  /** Called once, when the stream is over however it ended. */
  onEnd: (how: "complete" | "aborted" | "failed") => void;
}

/**
 * The chunks of one answer, resumed whenever the connection ends before the answer does: a read
 * that fails (a cut socket, a server restart) or a stream that ends with no `finish`. Each resume
 * replays the answer from its `start`, and a {@link ReplayFilter} drops what the consumer already
 * has, so it sees every chunk once. A resume that fails (the network still down, a 5xx) is tried
 * again with backoff; after `reconnect.maxAttempts` attempts in a row with no new chunk, or a 4xx,
 * the stream ends with an `error` chunk that says why. A resume that finds the answer over (204,
 * or another message's `start`) ends the stream with what `settle` gives: the rest of the message
 * as the chat's history has it.
 */
export function followStream(options: FollowOptions): ReadableStream<UIMessageChunk> {
  const { signal, reconnect } = options;
  const internal = new AbortController();
  const onAbort = () => internal.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });

  const pending = [...(options.prefix ?? [])];
  const known = [...(options.known ?? [])];
  let reader = options.first.getReader();
  let filter: ReplayFilter | undefined;
  let attempts = 0;
  let ended = false;
  let finished = false;
  let lastError: unknown;

  const end = (how: "complete" | "aborted" | "failed") => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener("abort", onAbort);
    options.onEnd(how);
  };

  const deliver = (controller: ReadableStreamDefaultController<UIMessageChunk>, chunk: UIMessageChunk) => {
    if (LAST_CHUNKS.has(chunk.type)) finished = true;
    options.onChunk(chunk);
    controller.enqueue(chunk);
  };

  const fail = (controller: ReadableStreamDefaultController<UIMessageChunk>, errorText: string) => {
    deliver(controller, { type: "error", errorText });
    controller.close();
    end("failed");
  };

  /** The answer ended while the connection was down: its end comes from the chat's history, or the stream fails saying so. */
  const settle = async (controller: ReadableStreamDefaultController<UIMessageChunk>) => {
    let rest: UIMessageChunk[] | undefined;
    let why = "the chat's history does not have it";
    try {
      rest = await options.settle(internal.signal);
    } catch (error) {
      if (internal.signal.aborted) throw error;
      why = `reading the chat's history failed: ${describe(error)}`;
    }
    if (!rest)
      return fail(
        controller,
        `The answer ended while the connection was down, and ${why}: reload the chat's messages to see its end.`,
      );
    const [first, ...others] = rest;
    pending.push(...others);
    if (first) deliver(controller, first);
  };

  /** Resumes after a cut: the replay's reader, "gone" when no answer is in flight, or the reason it failed. */
  const resume = async (): Promise<ReadableStreamDefaultReader<UIMessageChunk> | "gone" | { failed: string }> => {
    for (;;) {
      attempts++;
      if (attempts > reconnect.maxAttempts)
        return {
          failed: `The connection to the chat was lost and ${reconnect.maxAttempts} attempts to resume it failed (last: ${describe(lastError)}).`,
        };
      await sleep(delayBefore(attempts, reconnect), internal.signal);
      try {
        const stream = await options.resume(internal.signal);
        return stream ? stream.getReader() : "gone";
      } catch (error) {
        if (internal.signal.aborted) throw error;
        if (APICallError.isInstance(error) && error.statusCode !== undefined && error.statusCode < 500)
          return { failed: `Resuming the chat's answer was refused (${error.statusCode}): ${error.message}` };
        lastError = error;
      }
    }
  };

  return new ReadableStream<UIMessageChunk>({
    pull: async (controller) => {
      const first = pending.shift();
      if (first) return deliver(controller, first);
      try {
        for (;;) {
          let result: ReadableStreamReadResult<UIMessageChunk> | undefined;
          try {
            result = await reader.read();
          } catch (error) {
            if (internal.signal.aborted) throw error;
            lastError = error;
          }
          if (result && !result.done) {
            if (filter && isAnotherAnswer(result.value, known)) {
              void reader.cancel().catch(() => undefined);
              return settle(controller);
            }
            const chunk = filter ? filter.next(result.value) : result.value;
            if (!chunk) continue;
            known.push(chunk);
            if (filter) attempts = 0;
            return deliver(controller, chunk);
          }
          if (finished) {
            controller.close();
            return end("complete");
          }
          if (result?.done) lastError = new Error("the stream ended before its finish chunk");
          const next = await resume();
          if (next === "gone") return settle(controller);
          if ("failed" in next) return fail(controller, next.failed);
          reader = next;
          filter = new ReplayFilter(known);
        }
      } catch (error) {
        // Only an abort of the consumer's signal gets here: the stream ends as a fetch aborted would.
        end("aborted");
        throw error;
      }
    },
    cancel: async (reason) => {
      internal.abort(reason);
      end(finished ? "complete" : "aborted");
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

/** Whether a resume's `chunk` opens an answer other than the one `known` holds. */
function isAnotherAnswer(chunk: UIMessageChunk, known: readonly UIMessageChunk[]): boolean {
  const start = known[0];
  return chunk.type === "start" && start?.type === "start" && chunk.messageId !== start.messageId;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
