import type { Client } from "@temporalio/client";
import { completeResult } from "../../run-reads/index.js";
import { AnswerDeltas } from "./answer-deltas.js";
import { withSubAgentStreams } from "../../subagents/merge-streams.js";
import type { StreamedRunEvent } from "../../core/run-events.js";
import { formatCursor, parseCursor, type StreamCursor, type StreamPosition } from "../../core/stream-cursor.js";
import type { RunResult } from "../../core/types.js";
import { MAX_BUFFERED_EVENTS, watchRun, type ReaderItem } from "./run-watch.js";
import { releasable, unlessAborted } from "./releasable.js";
import { defined } from "../../core/defined.js";
import { StreamOverflowError } from "../../errors.js";
import { sseResponse } from "./sse-response.js";

/** Options of `handle.stream()`. */
export interface StreamOptions {
  /** The offset to start from: 0 (default) for the whole run, or the last seen `offset + 1` to resume. */
  fromOffset?: number;
  /**
   * Merge in the events of sub-agent runs the run starts (tagged with `agents` and their
   * `workflowId`; their offsets are their own run's). Default true. A stream resumed from an
   * offset merges the children started after it.
   */
  subAgents?: boolean;
  /**
   * Resume after the event with this `id` (an SSE `Last-Event-ID`): nothing it covers comes again,
   * nothing after it is missing, sub-agents' events included. Takes the place of `fromOffset`. A
   * string this library did not write is an `InvalidStreamCursorError`.
   */
  after?: string;
  /**
   * Aborting it ends the stream at once (a pending `next()` resolves as done) and lets go of the
   * run: pass the request's signal in an HTTP handler. `return()` on the iterator, or cancelling
   * its `ReadableStream` or SSE response, does the same.
   */
  signal?: AbortSignal;
  /**
   * Durable events that may wait for a consumer that reads slower than the run writes (default
   * 1,000; the answer in flight takes one place between two, whatever its length). Past it the
   * stream lets go of the run and throws `StreamOverflowError`, whose `after` resumes it with
   * nothing missing; an SSE response just ends, and `EventSource` reconnects with its
   * `Last-Event-ID`.
   */
  maxBufferedEvents?: number;
}

/**
 * A run's events as they happen, from a durable Workflow Stream: iterate it with `for await`.
 * Resumable from any offset, across processes, crashes and continue-as-new. It ends with
 * `run.finished`; a run that fails makes the iteration throw the run's typed error.
 */
export class RunEventStream implements AsyncIterable<StreamedRunEvent> {
  constructor(
    private readonly client: Client,
    readonly workflowId: string,
    private readonly result: () => Promise<RunResult>,
    private readonly options: StreamOptions = {},
    /**
     * The UI message stream's: the reasoning of trip `trip`'s answer (whose text is `text`), read
     * from the run's record, for an answer none of whose text was shown live (without it, the
     * reasoning comes from the answer's `model.answered`). Its rest then comes
     * as `reasoning.delta` before the answer's text, as it would have live, so a replay of a
     * finished trip gives the same parts in the same order.
     */
    private readonly reasoningOf?: (trip: number, text: string | null) => Promise<string>,
  ) {}

  /** The events, in order, as they happen (`for await`). */
  [Symbol.asyncIterator](): AsyncIterator<StreamedRunEvent> {
    const after = this.options.after === undefined ? undefined : parseCursor(this.options.after, 2, 3);
    return releasable((signal) => this.events(after, signal), this.options.signal, this.options.after);
  }

  /** The run's events after `after`, sub-agents' merged in; every wait takes `signal`, which ends them. */
  private events(after: StreamCursor | undefined, signal: AbortSignal): AsyncGenerator<StreamedRunEvent> {
    const own = this.ownEvents(after?.get("") ?? [(this.options.fromOffset ?? 0) - 1, 0], signal);
    if (this.options.subAgents === false) return own;
    const { maxBufferedEvents } = this.options;
    return withSubAgentStreams(
      own,
      (workflowId, childAfter) =>
        new RunEventStream(
          this.client,
          workflowId,
          async () => completeResult(this.client, await this.client.workflow.getHandle(workflowId).result()),
          defined({ after: childAfter && formatCursor(childAfter), signal, maxBufferedEvents }),
        ),
      this.workflowId,
      after,
    );
  }

  /**
   * The run's own events after `after` (its offset, and the answer's text and reasoning characters
   * already read after it), each with its `id`: its durable events by offset, and between them the
   * reasoning and text deltas of the answer in flight (carrying the offset of the durable event
   * before them). Text and reasoning are counted apart: a replay of a finished trip has its text,
   * not the reasoning that streamed live.
   */
  private async *ownEvents(after: StreamPosition, signal: AbortSignal): AsyncGenerator<StreamedRunEvent> {
    let at = after[0]!; // the offset of the last durable event given
    const given = { "text.delta": 0, "reasoning.delta": 0 }; // characters given after it
    const skip = { "text.delta": after[1] ?? 0, "reasoning.delta": after[2] ?? 0 }; // read before this stream started
    for await (const event of this.ownEventsFrom(at + 1, signal)) {
      if ((event.type === "text.delta" || event.type === "reasoning.delta") && event.offset === at) {
        const text = event.text.slice(Math.min(skip[event.type], event.text.length));
        skip[event.type] -= event.text.length - text.length;
        if (text === "") continue;
        given[event.type] += text.length;
        const reasoning = given["reasoning.delta"];
        const position = reasoning > 0 ? [at, given["text.delta"], reasoning] : [at, given["text.delta"]];
        yield { ...event, text, id: formatCursor(new Map([["", position]])) };
      } else {
        at = event.offset;
        given["text.delta"] = given["reasoning.delta"] = 0;
        skip["text.delta"] = skip["reasoning.delta"] = 0;
        yield { ...event, id: formatCursor(new Map([["", [at, 0]]])) };
      }
    }
  }

  /**
   * The run's durable events from `fromOffset`, and between them the text deltas of the answer in
   * flight. They come from this process's one reader of the run (`run-watch.ts`), shared with the
   * run's other watchers. Once `signal` aborts they end, and the watcher leaves the reader.
   */
  private async *ownEventsFrom(fromOffset: number, signal: AbortSignal): AsyncGenerator<StreamedRunEvent> {
    let next = fromOffset;
    const limit = this.options.maxBufferedEvents ?? MAX_BUFFERED_EVENTS;
    const watch = watchRun(this.client, this.workflowId, next, limit);
    try {
      const deltas = new AnswerDeltas();
      const caughtUp = await unlessAborted(signal, () => watch.catchUp(signal));
      if (!caughtUp) return;
      const items: ReaderItem[] = caughtUp.map((event) => ({ type: "durable", event }));
      for (;;) {
        const item = items.shift() ?? (await unlessAborted(signal, () => watch.queue.take(signal)));
        if (!item || signal.aborted) return; // let go: the watcher leaves below
        if (item.type === "failed") throw item.error;
        if (item.type === "overflow") throw new StreamOverflowError(this.workflowId, item.limit);
        if (item.type === "closed") {
          // The last durable events could not be read: the final answer's text comes from the result.
          const result = await this.result();
          for (const delta of deltas.beforeResult(result)) yield { ...delta, offset: next - 1 };
          yield { type: "run.finished", result, offset: next };
          return;
        }
        if (item.type === "partial") {
          let sent = deltas.fromPartial(item.partial);
          if (sent === "needs-marker" && item.confirmed) {
            // The attempt's trip.retry was before this watcher's offset.
            deltas.acceptAttempt(item.partial.trip, item.partial.attempt);
            sent = deltas.fromPartial(item.partial);
          }
          if (sent !== "needs-marker") for (const delta of sent) yield { ...delta, offset: next - 1 };
          continue;
        }
        const event = item.event;
        if (event.offset < next) continue;
        if (event.type === "model.answered" && deltas.wantsReasoning(event.trip)) {
          // The answer's reasoning, past what streamed live, before its text: from its model.answered (the UI stream reads its parts from the record).
          const whole = this.reasoningOf ? await this.reasoningOf(event.trip, event.text) : event.reasoning;
          if (whole)
            for (const delta of deltas.reasoningBefore(event.trip, whole)) yield { ...delta, offset: next - 1 };
        }
        for (const delta of deltas.beforeDurable(event)) yield { ...delta, offset: next - 1 };
        next = event.offset + 1;
        yield { ...event };
        if (event.type === "run.finished") return;
      }
    } finally {
      watch.leave();
    }
  }

  /**
   * The answer text alone. Text of a model call attempt that was retried is not taken back;
   * use the events (`trip.retry`) where that matters.
   */
  textStream(): AsyncIterable<string> {
    return { [Symbol.asyncIterator]: () => releasable((signal) => this.text(signal), this.options.signal) };
  }

  private async *text(signal: AbortSignal): AsyncGenerator<string> {
    const sent = new Map<number, string>();
    for await (const event of new RunEventStream(this.client, this.workflowId, this.result, {
      ...this.options,
      signal,
    })) {
      if (event.type === "text.delta") {
        sent.set(event.trip, (sent.get(event.trip) ?? "") + event.text);
        yield event.text;
      } else if (event.type === "run.finished") {
        // A subscriber that attached after the last deltas still gets the whole final answer.
        const last = sent.get(event.result.trips) ?? "";
        if (event.result.reply.startsWith(last) && event.result.reply.length > last.length)
          yield event.result.reply.slice(last.length);
      }
    }
  }

  /** The events as a web `ReadableStream`; cancelling it lets go of the run at once. */
  toReadableStream(): ReadableStream<StreamedRunEvent> {
    return this.readable(false);
  }

  /**
   * The events as server-sent events, for an HTTP handler: `id` is the event's `id` (so a
   * reconnecting `EventSource` resumes with `Last-Event-ID`: pass it as `after`), `event` the type,
   * `data` the JSON event. Cancelling the response's body (the client went away) lets go of the
   * run at once; a client too slow for `maxBufferedEvents` gets a response that ends, to reconnect.
   */
  toSSEResponse(init: ResponseInit = {}): Response {
    return sseResponse(
      this.readable(true),
      (event) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
      init,
    );
  }

  /** The events as a `ReadableStream`; with `endOnOverflow`, a `StreamOverflowError` ends it rather than erroring it. */
  private readable(endOnOverflow: boolean): ReadableStream<StreamedRunEvent> {
    const iterator = this[Symbol.asyncIterator]();
    let cancelled = false;
    return new ReadableStream({
      async pull(controller) {
        let step: IteratorResult<StreamedRunEvent>;
        try {
          step = await iterator.next();
        } catch (error) {
          if (!endOnOverflow || !StreamOverflowError.isInstance(error)) throw error;
          step = { done: true, value: undefined };
        }
        if (cancelled) return;
        if (step.done) controller.close();
        else controller.enqueue(step.value);
      },
      async cancel() {
        cancelled = true;
        await iterator.return?.();
      },
    });
  }
}
