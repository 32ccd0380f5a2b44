import { setTimeout as sleep } from "node:timers/promises";
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import { streamTailQuery, type StreamTail } from "../workflows/definitions.js";
import { completeResult } from "./complete-result.js";
import { AnswerDeltas, partialAnswerOf } from "./answer-deltas.js";
import { withSubAgentStreams } from "../subagents/merge-streams.js";
import type { RunEvent, StreamedRunEvent } from "../core/run-events.js";
import { formatCursor, parseCursor, type StreamPosition } from "../core/stream-cursor.js";
import type { RunResult } from "../core/types.js";
import { loadTemporalClient, loadTemporalCommon, loadTemporalProto } from "./temporal-sdk.js";

/**
 * How a subscriber reads a run, writing nothing to it: `describe()` (answered by the server
 * alone) tells whether the run's history grew and gives the answer in flight (the model call's
 * heartbeat details); only when the history grew does it read the new durable events, with the
 * `run-events-tail` query (the Workflow Stream's log, from an offset). A subscriber adds no
 * history event, no workflow task, and one query per step of the run.
 */
/** Pause between reads while the model answers: the latency of text deltas, one `describe()` each. */
const ANSWER_PAUSE_MS = 40;
/** Pause between reads while the run is between answers, growing by half each time nothing changed, up to IDLE_PAUSE_MS. */
const IDLE_PAUSE_MS = 250;
/** Failed reads back off from ANSWER_PAUSE_MS, doubling up to this pause. */
const MAX_RETRY_PAUSE_MS = 2_000;
/**
 * Reads that may fail in a row, while the run is running or its status cannot be read (a worker
 * restarting, a server outage), before the stream gives up with the last error: with the
 * backoff, about 3 minutes.
 */
const MAX_READ_FAILURES = 100;
/** How long a closed run's last events are asked for while no worker answers (one restarting) before the result alone ends the stream. */
const CLOSED_TAIL_PATIENCE_MS = 30_000;

/** Decodes a stream item's data (a base64 `Payload` proto) as a run event, once the SDK modules it needs are loaded. */
async function eventDecoder(): Promise<(data: string) => RunEvent> {
  const [{ defaultPayloadConverter }, proto] = await Promise.all([loadTemporalCommon(), loadTemporalProto()]);
  const { Payload } = proto.temporal.api.common.v1;
  return (data) => defaultPayloadConverter.fromPayload<RunEvent>(Payload.decode(Buffer.from(data, "base64")));
}

/** The pause after the `failures`-th failed read in a row. */
const retryPause = (failures: number) =>
  Math.min(MAX_RETRY_PAUSE_MS, ANSWER_PAUSE_MS * 2 ** Math.min(failures - 1, 16));

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
  ) {}

  /** The events, in order, as they happen (`for await`). */
  [Symbol.asyncIterator](): AsyncIterator<StreamedRunEvent> {
    const after = this.options.after === undefined ? undefined : parseCursor(this.options.after, 2);
    const own = this.ownEvents(after?.get("") ?? [(this.options.fromOffset ?? 0) - 1, 0]);
    if (this.options.subAgents === false) return own;
    return withSubAgentStreams(
      own,
      (workflowId, childAfter) =>
        new RunEventStream(
          this.client,
          workflowId,
          async () => completeResult(this.client, await this.client.workflow.getHandle(workflowId).result()),
          childAfter === undefined ? {} : { after: formatCursor(childAfter) },
        ),
      this.workflowId,
      after,
    );
  }

  /**
   * The run's own events after `after` (its offset, and the answer characters already read after
   * it), each with its `id`: its durable events by offset, and between them the text deltas of the
   * answer in flight (carrying the offset of the durable event before them).
   */
  private async *ownEvents(after: StreamPosition): AsyncGenerator<StreamedRunEvent> {
    let at = after[0]!; // the offset of the last durable event given
    let chars = 0; // answer characters given after it
    let skip = after[1] ?? 0; // characters read before this stream started
    for await (const event of this.ownEventsFrom(at + 1)) {
      if (event.type === "text.delta" && event.offset === at) {
        const text = event.text.slice(Math.min(skip, event.text.length));
        skip -= event.text.length - text.length;
        if (text === "") continue;
        chars += text.length;
        yield { ...event, text, id: formatCursor(new Map([["", [at, chars]]])) };
      } else {
        at = event.offset;
        chars = 0;
        skip = 0;
        yield { ...event, id: formatCursor(new Map([["", [at, 0]]])) };
      }
    }
  }

  private async *ownEventsFrom(fromOffset: number): AsyncGenerator<StreamedRunEvent> {
    // The latest run of the workflow: after a continue-as-new, reads land on the new run (its stream carries the offsets on).
    const handle = this.client.workflow.getHandle(this.workflowId);
    const [{ WorkflowNotFoundError }, decodeEvent] = await Promise.all([loadTemporalClient(), eventDecoder()]);
    const deltas = new AnswerDeltas();
    let next = fromOffset;
    let seen: string | undefined; // the run id and history length the durable events were last read at
    let idlePause = ANSWER_PAUSE_MS;
    let answering = false; // a model call is under way: read at the answer's pace
    for (let failures = 0; ;) {
      let description: WorkflowExecutionDescription;
      try {
        description = await handle.describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError || ++failures > MAX_READ_FAILURES) throw error;
        await sleep(retryPause(failures));
        continue;
      }
      const running = description.status.name === "RUNNING";
      if (!running) break;
      const version = `${description.runId}/${description.historyLength}`;
      const queried = version !== seen;
      if (queried) {
        let tail: StreamTail;
        try {
          tail = await handle.query(streamTailQuery, next);
          failures = 0;
        } catch (error) {
          // No worker answers yet (one restarting), or the run closed meanwhile: read again.
          if (++failures > MAX_READ_FAILURES) throw error;
          await sleep(retryPause(failures));
          continue;
        }
        seen = version;
        idlePause = ANSWER_PAUSE_MS;
        for (const { offset, data } of tail.items) {
          const event = { ...decodeEvent(data), offset };
          for (const delta of deltas.beforeDurable(event)) yield { ...delta, offset: next - 1 };
          next = offset + 1;
          if (event.type === "run.finished") {
            yield { ...event, result: await completeResult(this.client, event.result) };
            return;
          }
          answering = event.type === "trip.started" || event.type === "trip.retry";
          yield event;
        }
      }
      const partial = await partialAnswerOf(description, this.client.options.loadedDataConverter);
      if (partial) {
        const sent = deltas.fromPartial(partial);
        if (sent === "needs-marker") {
          // A retried attempt: its trip.retry is in the durable events read after this description, or before our offset.
          if (queried) deltas.acceptAttempt(partial.trip, partial.attempt);
          else seen = undefined;
          continue;
        }
        for (const delta of sent) yield { ...delta, offset: next - 1 };
        await sleep(ANSWER_PAUSE_MS);
      } else if (answering) {
        await sleep(ANSWER_PAUSE_MS);
      } else {
        await sleep(idlePause);
        idlePause = Math.min(IDLE_PAUSE_MS, idlePause * 1.5);
      }
    }
    // The run closed: the rest of its events from the closed run, then its result.
    for (const event of await this.tail(next, decodeEvent)) {
      for (const delta of deltas.beforeDurable(event)) yield { ...delta, offset: next - 1 };
      next = event.offset + 1;
      if (event.type === "run.finished") {
        yield { ...event, result: await completeResult(this.client, event.result) };
        return;
      }
      yield event;
    }
    yield { type: "run.finished", result: await this.result(), offset: next };
  }

  /**
   * The events of a closed run from an offset (a query, answered by a worker replaying the run). A
   * worker may be restarting just then, so a failed query is tried again for CLOSED_TAIL_PATIENCE_MS
   * before the stream ends with the result alone (the events between are then not sent).
   */
  private async tail(fromOffset: number, decodeEvent: (data: string) => RunEvent): Promise<StreamedRunEvent[]> {
    const giveUpAt = Date.now() + CLOSED_TAIL_PATIENCE_MS;
    for (let failures = 1; ; failures++) {
      try {
        const tail: StreamTail = await this.client.workflow
          .getHandle(this.workflowId)
          .query(streamTailQuery, fromOffset);
        return tail.items.map(({ offset, data }) => ({ ...decodeEvent(data), offset }));
      } catch {
        if (Date.now() >= giveUpAt) return []; // no worker to answer: the result alone still ends the stream
        await sleep(retryPause(failures));
      }
    }
  }

  /**
   * The answer text alone. Text of a model call attempt that was retried is not taken back;
   * use the events (`trip.retry`) where that matters.
   */
  async *textStream(): AsyncIterable<string> {
    const sent = new Map<number, string>();
    for await (const event of this) {
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

  /** The events as a web `ReadableStream`. */
  toReadableStream(): ReadableStream<StreamedRunEvent> {
    const iterator = this[Symbol.asyncIterator]();
    return new ReadableStream({
      async pull(controller) {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await iterator.return?.();
      },
    });
  }

  /**
   * The events as server-sent events, for an HTTP handler: `id` is the event's `id` (so a
   * reconnecting `EventSource` resumes with `Last-Event-ID`: pass it as `after`), `event` the type,
   * `data` the JSON event.
   */
  toSSEResponse(init: ResponseInit = {}): Response {
    const encoder = new TextEncoder();
    const body = this.toReadableStream().pipeThrough(
      new TransformStream<StreamedRunEvent, Uint8Array>({
        transform(event, controller) {
          controller.enqueue(
            encoder.encode(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
          );
        },
      }),
    );
    return new Response(body, {
      ...init,
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
        ...init.headers,
      },
    });
  }
}
