/**
 * Transport (a), the baseline: how a watcher read a run before the shared run readers (the
 * describe loop of `src/client/run-event-stream.ts` at 44927f7), kept here for the benchmark
 * alone. Each watcher polls for itself: `describe()` every 40 ms while the model answers (the
 * answer in flight is in the model call's heartbeat details) and up to every 250 ms between
 * answers, and the `run-events-tail` query whenever the history grew. Sub-agents, cursors and
 * reconnects are left out: the benchmark reads one run from its start.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import { WorkflowNotFoundError } from "@temporalio/client";
import { AnswerDeltas, partialAnswerOf } from "../../src/streaming/client/answer-deltas.js";
import { eventDecoder, readDurableTail, type DurableEvent } from "../../src/streaming/client/durable-tail.js";
import type { StreamedRunEvent } from "../../src/index.js";

/** Pause between reads while the model answers: the latency of text deltas, one `describe()` each. */
const ANSWER_PAUSE_MS = 40;
/** Pause between reads while the run is between answers, growing by half each time nothing changed, up to this. */
const IDLE_PAUSE_MS = 250;
/** Failed reads back off from ANSWER_PAUSE_MS, doubling up to this pause. */
const MAX_RETRY_PAUSE_MS = 2_000;
/** Reads that may fail in a row before the watcher gives up with the last error. */
const MAX_READ_FAILURES = 100;

const retryPause = (failures: number) =>
  Math.min(MAX_RETRY_PAUSE_MS, ANSWER_PAUSE_MS * 2 ** Math.min(failures - 1, 16));

/** The run's events from its start, read by this watcher's own describe loop; ends after `run.finished`. */
export async function* pollingWatcher(
  client: Client,
  workflowId: string,
  signal: AbortSignal,
): AsyncGenerator<StreamedRunEvent> {
  const handle = client.workflow.getHandle(workflowId);
  const decode = await eventDecoder();
  const deltas = new AnswerDeltas();
  let next = 0;
  let seen: string | undefined; // the run id and history length the durable events were last read at
  let idlePause = ANSWER_PAUSE_MS;
  let answering = false; // a model call is under way: read at the answer's pace
  const pause = (ms: number) => sleep(ms, undefined, { signal }).catch(() => undefined);
  const hand = function* (events: DurableEvent[]): Generator<StreamedRunEvent, boolean> {
    for (const event of events) {
      for (const delta of deltas.beforeDurable(event)) yield { ...delta, offset: next - 1 };
      next = event.offset + 1;
      yield event;
      if (event.type === "run.finished") return true;
      answering = event.type === "trip.started" || event.type === "trip.retry";
    }
    return false;
  };
  for (let failures = 0; !signal.aborted;) {
    let description: WorkflowExecutionDescription;
    try {
      description = await handle.describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || ++failures > MAX_READ_FAILURES) throw error;
      await pause(retryPause(failures));
      continue;
    }
    if (description.status.name !== "RUNNING") break;
    const version = `${description.runId}/${description.historyLength}`;
    const queried = version !== seen;
    if (queried) {
      let events: DurableEvent[];
      try {
        events = await readDurableTail(client, workflowId, next, decode);
        failures = 0;
      } catch (error) {
        if (++failures > MAX_READ_FAILURES) throw error;
        await pause(retryPause(failures));
        continue;
      }
      seen = version;
      idlePause = ANSWER_PAUSE_MS;
      if (yield* hand(events)) return;
    }
    const partial = await partialAnswerOf(description, client.options.loadedDataConverter);
    if (partial) {
      const sent = deltas.fromPartial(partial);
      if (sent === "needs-marker") {
        if (queried) deltas.acceptAttempt(partial.trip, partial.attempt);
        else seen = undefined;
        continue;
      }
      for (const delta of sent) yield { ...delta, offset: next - 1 };
      await pause(ANSWER_PAUSE_MS);
    } else if (answering) {
      await pause(ANSWER_PAUSE_MS);
    } else {
      await pause(idlePause);
      idlePause = Math.min(IDLE_PAUSE_MS, idlePause * 1.5);
    }
  }
  // The run closed: the rest of its events from the closed run (a worker replays it to answer).
  for (let failures = 1; !signal.aborted; failures++) {
    try {
      yield* hand(await readDurableTail(client, workflowId, next, decode));
      return;
    } catch (error) {
      if (failures >= MAX_READ_FAILURES) throw error;
      await pause(retryPause(failures));
    }
  }
}
