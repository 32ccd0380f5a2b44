import type { Client } from "@temporalio/client";
import { defaultPayloadConverter } from "@temporalio/common";
import proto from "@temporalio/proto";
import { WorkflowStreamClient } from "@temporalio/workflow-streams/client";
import { streamTailQuery, type StreamTail } from "../workflows/definitions.js";
import { completeResult } from "./complete-result.js";
import { RUN_EVENTS_TOPIC, type RunEvent, type StreamedRunEvent } from "../contract/run-events.js";
import type { RunResult } from "../contract/types.js";

/** Pause between polls that found nothing more ready: lower means lower latency, more poll updates. */
const POLL_COOLDOWN = "20 milliseconds";

/** Options of `handle.stream()`. */
export interface StreamOptions {
  /** The offset to start from: 0 (default) for the whole run, or the last seen `offset + 1` to resume. */
  fromOffset?: number;
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

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedRunEvent> {
    const topic = WorkflowStreamClient.create(this.client, this.workflowId).topic<RunEvent>(RUN_EVENTS_TOPIC);
    let next = this.options.fromOffset ?? 0;
    for await (const item of topic.subscribe(next, { pollCooldown: POLL_COOLDOWN })) {
      next = item.offset + 1;
      if (item.data.type === "run.finished") {
        yield { type: "run.finished", result: await completeResult(this.client, item.data.result), offset: item.offset };
        return;
      }
      yield { ...item.data, offset: item.offset };
    }
    // The run closed after our last poll: take the rest from the closed run, then its result.
    for (const event of await this.tail(next)) {
      next = event.offset + 1;
      if (event.type === "run.finished") {
        yield { ...event, result: await completeResult(this.client, event.result) };
        return;
      }
      yield event;
    }
    yield { type: "run.finished", result: await this.result(), offset: next };
  }

  /** The events of a closed run from an offset (a query, answered by a worker replaying the run). */
  private async tail(fromOffset: number): Promise<StreamedRunEvent[]> {
    let tail: StreamTail;
    try {
      tail = await this.client.workflow.getHandle(this.workflowId).query(streamTailQuery, fromOffset);
    } catch {
      return []; // no worker to answer: the result alone still ends the stream
    }
    return tail.items.map(({ offset, data }) => {
      const payload = proto.temporal.api.common.v1.Payload.decode(Buffer.from(data, "base64"));
      return { ...defaultPayloadConverter.fromPayload<RunEvent>(payload), offset };
    });
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
        if (event.result.reply.startsWith(last) && event.result.reply.length > last.length) yield event.result.reply.slice(last.length);
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
   * The events as server-sent events, for an HTTP handler: `id` is the offset (so a reconnecting
   * `EventSource` resumes with `Last-Event-ID`), `event` the type, `data` the JSON event.
   */
  toSSEResponse(init: ResponseInit = {}): Response {
    const encoder = new TextEncoder();
    const body = this.toReadableStream().pipeThrough(
      new TransformStream<StreamedRunEvent, Uint8Array>({
        transform(event, controller) {
          controller.enqueue(encoder.encode(`id: ${event.offset}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
        },
      }),
    );
    return new Response(body, {
      ...init,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...init.headers },
    });
  }
}
