import { setTimeout as sleep } from "node:timers/promises";
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from "@temporalio/client";
import { defaultPayloadConverter } from "@temporalio/common";
import proto from "@temporalio/proto";
import { streamTailQuery, type StreamTail } from "../workflows/definitions.js";
import { completeResult } from "./complete-result.js";
import { withSubAgentStreams } from "../subagents/merge-streams.js";
import { RUN_EVENTS_TOPIC, type RunEvent, type StreamedRunEvent } from "../contract/run-events.js";
import type { RunResult } from "../contract/types.js";

/**
 * Subscribing speaks Workflow Streams' wire protocol (the `__temporal_workflow_stream_poll`
 * update) directly rather than through `WorkflowStreamClient.subscribe`, which in 1.23 keeps
 * polling forever when a run continues as new and then completes between two polls.
 */
const POLL_UPDATE = "__temporal_workflow_stream_poll";
interface PollInput {
  topics: string[];
  from_offset: number;
}
interface PollResult {
  items: Array<{ topic: string; data: string; offset: number }>;
  next_offset: number;
  more_ready: boolean;
}
/** Pause between polls that found nothing more ready: lower means lower latency, more poll updates. */
const POLL_COOLDOWN_MS = 20;
/** Failed polls back off from POLL_COOLDOWN_MS, doubling up to this pause. */
const MAX_RETRY_PAUSE_MS = 2_000;
/**
 * Polls that may fail in a row, while the run is running or its status cannot be read (a
 * continue-as-new, a server outage), before the stream gives up with the last error: with the
 * backoff, about 3 minutes.
 */
const MAX_POLL_FAILURES = 100;

/** A stream item's data (a base64 `Payload` proto) as a run event. */
function decodeEvent(data: string): RunEvent {
  return defaultPayloadConverter.fromPayload<RunEvent>(proto.temporal.api.common.v1.Payload.decode(Buffer.from(data, "base64")));
}

/** Whether the run is still running, has closed, or cannot be told (the server is unreachable). */
async function runStatus(handle: WorkflowHandle): Promise<"running" | "closed" | "unknown"> {
  try {
    return (await handle.describe()).status.name === "RUNNING" ? "running" : "closed";
  } catch (error) {
    return error instanceof WorkflowNotFoundError ? "closed" : "unknown";
  }
}

/** The pause after the `failures`-th failed poll in a row. */
const retryPause = (failures: number) => Math.min(MAX_RETRY_PAUSE_MS, POLL_COOLDOWN_MS * 2 ** Math.min(failures - 1, 16));

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
    if (this.options.subAgents === false) return this.ownEvents();
    return withSubAgentStreams(this.ownEvents(), (workflowId) => new RunEventStream(this.client, workflowId, async () => completeResult(this.client, await this.client.workflow.getHandle(workflowId).result())));
  }

  /** The run's own events. */
  private async *ownEvents(): AsyncGenerator<StreamedRunEvent> {
    // The latest run of the workflow: after a continue-as-new, polls land on the new run.
    const handle = this.client.workflow.getHandle(this.workflowId);
    let next = this.options.fromOffset ?? 0;
    for (let failures = 0; ; ) {
      let page: PollResult;
      try {
        page = await handle.executeUpdate<PollResult, [PollInput]>(POLL_UPDATE, { args: [{ topics: [RUN_EVENTS_TOPIC], from_offset: next }] });
        failures = 0;
      } catch (error) {
        const type = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause.type : undefined;
        if (type === "TruncatedOffset") next = 0; // fell behind what the stream keeps: resume at its oldest event
        // Closed: the rest comes from its tail. Unknown (the server is down): poll again once it is back.
        else if (type !== "StreamDraining" && (await runStatus(handle)) === "closed") break;
        if (++failures > MAX_POLL_FAILURES) throw error;
        await sleep(type === "StreamDraining" ? POLL_COOLDOWN_MS : retryPause(failures)); // a continue-as-new is over in a poll or two
        continue;
      }
      for (const { offset, data } of page.items) {
        next = offset + 1;
        const event = { ...decodeEvent(data), offset };
        if (event.type === "run.finished") {
          yield { ...event, result: await completeResult(this.client, event.result) };
          return;
        }
        yield event;
      }
      next = page.next_offset;
      if (!page.more_ready) await sleep(POLL_COOLDOWN_MS);
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
    return tail.items.map(({ offset, data }) => ({ ...decodeEvent(data), offset }));
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
