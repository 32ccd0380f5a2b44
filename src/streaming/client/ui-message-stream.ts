/**
 * A run's answer as the AI SDK's UI message stream (what `useChat` reads): a mapping over the
 * run's event stream (`RunEventStream`, the one source of timing), reading what the events do not
 * carry (reasoning not streamed live, tool inputs and outputs) from the run's conversation.
 *
 * A run is one answer. A session holds many: one session message is the session's events from
 * the offset where its answer starts up to its `run.stopped`. A chat handler streams a session's
 * message so:
 *
 *   1. before `session.send(text)`, note where the message will start: the session's next stream
 *      offset (`fromOffset`, the length of its event stream) and the length of its conversation
 *      (`fromMessage`, the index the user message will have);
 *   2. `uiMessageStream(client, session.workflowId, { fromOffset, fromMessage, messageId, endAtApproval: true })`,
 *      answered with `uiMessageStreamResponse(stream)`;
 *   3. a resume (`GET …/stream`) calls it again with the same `fromOffset`, `fromMessage` and
 *      `messageId`: a full replay of the answer in flight, opening with `start`, then live. With
 *      the `Last-Event-ID` of a dropped connection as `after`, it sends only what came after it.
 *   4. after an approval decision, the answer goes on in the same message: the same `messageId`,
 *      and `fromOffset` just after the `approval` event that asked (its offset + 1), so the stream
 *      does not end again at the same request.
 *
 * The stream ends with `finish` at the answer's `run.stopped` (or the run's `run.finished`), at a
 * call waiting for approval with `endAtApproval`, or with `error` and `finish` when the run fails.
 */
import type { Client } from "@temporalio/client";
import type { UIMessageChunk } from "ai";
import type { StreamedRunEvent } from "../../core/run-events.js";
import { comparePositions, formatCursor, parseCursor, type StreamPosition } from "../../core/stream-cursor.js";
import { completeResult } from "../../run-reads/index.js";
import { RunEventStream } from "./run-event-stream.js";
import { toRunError } from "../../run-reads/index.js";
import { pendingApprovalsQuery } from "../../workflows/definitions.js";
import { ChunkMapper } from "./chunk-mapper.js";
import type { MappedChunk } from "./mapped-chunk.js";
import { sseResponse } from "./sse-response.js";
import { releasable } from "./releasable.js";
import { defined } from "../../core/defined.js";
import { StreamOverflowError } from "../../errors.js";

/** Options of `uiMessageStream()` and `handle.toUIMessageStreamResponse()`. */
export interface UIMessageStreamOptions {
  /** The offset of the answer's first event in the run's stream: 0 (default) for a run, where its message starts for a session's message. */
  fromOffset?: number;
  /** The conversation index of the answer's first message (its user message), where tool inputs and outputs are looked up from. Default 0. */
  fromMessage?: number;
  /** The id of the assistant message, in `start`. Default: the workflow id, with `:<fromOffset>` after a non-zero `fromOffset`. */
  messageId?: string;
  /**
   * End the stream (with `finish`, reason "tool-calls") when the run reaches a call waiting for
   * approval, while the run keeps waiting: `useChat` sends a decision only once the stream has
   * ended. Default false: the stream waits with the run.
   */
  endAtApproval?: boolean;
  /**
   * Resume after the chunk with this SSE id (the `Last-Event-ID` of a dropped connection): the
   * answer is read again from `fromOffset` and only what came after that chunk is sent, after a
   * `start`. A string this library did not write is an `InvalidStreamCursorError`.
   */
  after?: string;
  /** Aborting it ends the stream at once and lets go of the run (pass the request's signal); cancelling the stream does the same. */
  signal?: AbortSignal;
  /**
   * Durable events that may wait for a client that reads slower than the run writes (default
   * 1,000). Past it the stream lets go of the run and errors with `StreamOverflowError`: the
   * client resumes after the last chunk it got (its SSE id), nothing missing.
   */
  maxBufferedEvents?: number;
}

/** The SSE ids of the chunks `uiMessageStream` made, for `uiMessageStreamResponse`. */
const chunkIds = new WeakMap<UIMessageChunk, string>();

/** Where a source (the run, or a sub-agent's run) is in the UI message stream: [offset, characters, chunk]. */
type UIPosition = [number, number, number];

/**
 * The answer of run `workflowId` (from `fromOffset`) as UI message chunks, opening with `start`
 * and ending with `finish`. Each chunk but `start` has an SSE id (see `after`), which
 * `uiMessageStreamResponse` writes.
 */
export function uiMessageStream(
  client: Client,
  workflowId: string,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const fromOffset = options.fromOffset ?? 0;
  const after = options.after === undefined ? undefined : parseCursor(options.after, 3);
  const messageId = options.messageId ?? (fromOffset === 0 ? workflowId : `${workflowId}:${fromOffset}`);
  const chunks = releasable(
    (signal) => mapEvents(client, workflowId, fromOffset, options, after, signal),
    options.signal,
  );
  let started = false;
  let cancelled = false;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue({ type: "start", messageId });
        return;
      }
      const { value, done } = await chunks.next();
      if (cancelled) return;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      cancelled = true;
      await chunks.return?.(undefined);
    },
  });
}

/**
 * The chunks of the answer after `start`, each registered with its SSE id; those `after` covers
 * are left out. They end at once when `signal` aborts; a `StreamOverflowError` names the last
 * chunk's id to resume after.
 */
async function* mapEvents(
  client: Client,
  workflowId: string,
  fromOffset: number,
  options: UIMessageStreamOptions,
  after: Map<string, StreamPosition> | undefined,
  signal: AbortSignal,
): AsyncGenerator<UIMessageChunk> {
  const handle = client.workflow.getHandle(workflowId);
  const waits = options.endAtApproval ? (callId: string) => stillWaits(client, workflowId, callId) : undefined;
  const mapper = new ChunkMapper(client, workflowId, options.fromMessage ?? 0, waits);
  const events = new RunEventStream(
    client,
    workflowId,
    async () => {
      try {
        return await completeResult(client, await handle.result());
      } catch (error) {
        throw await toRunError(workflowId, error);
      }
    },
    defined({ fromOffset, signal, maxBufferedEvents: options.maxBufferedEvents }),
    (trip, text) => mapper.reasoningOf(trip, text),
  );
  const positions = new Map<string, UIPosition>();
  let eventPositions = new Map<string, StreamPosition>();
  let lastId = options.after;
  /** The chunks with their ids, less what `after` covers. */
  function* place(source: string, mapped: MappedChunk[]): Generator<UIMessageChunk> {
    const position = positions.get(source)!;
    for (const { chunk, chars } of mapped) {
      if (chars) {
        position[1] += chars;
        position[2] = 0;
      } else position[2] += 1;
      const sent = sendable(chunk, chars ?? 0, position, after?.get(source));
      if (!sent) continue;
      lastId = formatCursor(positions);
      chunkIds.set(sent, lastId);
      yield sent;
    }
  }
  const iterator = events[Symbol.asyncIterator]();
  // Let go of the run at once, even while a chunk is being mapped (the events then wait at a yield).
  const letGo = () => void iterator.return?.();
  signal.addEventListener("abort", letGo, { once: true });
  try {
    for (;;) {
      let event: StreamedRunEvent;
      try {
        const next = await iterator.next();
        if (next.done) break;
        event = next.value;
      } catch (error) {
        if (StreamOverflowError.isInstance(error))
          throw new StreamOverflowError(workflowId, error.maxBufferedEvents, lastId);
        yield* place("", mapper.fail(error));
        return;
      }
      if (signal.aborted) return; // let go: nothing more is mapped (mapping reads the run)
      const now = parseCursor(event.id!, 2, 3);
      const source = changedSource(eventPositions, now);
      eventPositions = now;
      const offset = now.get(source)![0]!;
      if (positions.get(source)?.[0] !== offset) positions.set(source, [offset, 0, 0]);
      yield* place(source, await mapper.map(event, source));
      if (mapper.ended) return;
    }
    if (signal.aborted) return; // let go: no finish for a stream nobody reads
    yield* place("", mapper.end("other"));
  } finally {
    signal.removeEventListener("abort", letGo);
    await iterator.return?.();
  }
}

/** Whether a call still waits for approval in the run. */
async function stillWaits(client: Client, workflowId: string, callId: string): Promise<boolean> {
  const pending = await client.workflow.getHandle(workflowId).query(pendingApprovalsQuery);
  return pending.some((approval) => approval.callId === callId);
}

/** The source whose position an event moved: the run ("") or a sub-agent run's key. */
function changedSource(before: ReadonlyMap<string, StreamPosition>, now: ReadonlyMap<string, StreamPosition>): string {
  for (const [key, position] of now) {
    const was = before.get(key);
    if (!was || comparePositions(was, position) !== 0) return key;
  }
  return "";
}

/**
 * The chunk to send, given where the client already is in its source (`seen`): none when it has
 * it, the rest of a text (or reasoning) delta it has part of, else the chunk. A `data-subagent` part made from a
 * delta is whole each time, so it is sent again rather than cut.
 */
function sendable(
  chunk: UIMessageChunk,
  chars: number,
  position: UIPosition,
  seen: StreamPosition | undefined,
): UIMessageChunk | undefined {
  if (!seen || comparePositions(position, seen) > 0) {
    if ((chunk.type !== "text-delta" && chunk.type !== "reasoning-delta") || !seen || seen[0] !== position[0])
      return chunk;
    const start = position[1] - chars;
    const have = seen[1]! - start;
    return have > 0 && have < chars ? { ...chunk, delta: chunk.delta.slice(have) } : chunk;
  }
  return undefined;
}

/**
 * The chunks as the AI SDK's UI message stream over server-sent events (`data: <json>`, each with
 * its `id:` when it has one, and `data: [DONE]` last), with the header `x-vercel-ai-ui-message-stream: v1`:
 * the response a `useChat` route returns.
 */
export function uiMessageStreamResponse(stream: ReadableStream<UIMessageChunk>, init: ResponseInit = {}): Response {
  return sseResponse(
    stream,
    (chunk) => {
      const id = chunkIds.get(chunk);
      return `${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(chunk)}\n\n`;
    },
    init,
    { last: "data: [DONE]\n\n", headers: { "x-vercel-ai-ui-message-stream": "v1", "x-accel-buffering": "no" } },
  );
}
