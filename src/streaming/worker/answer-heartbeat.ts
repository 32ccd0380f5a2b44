/**
 * The delta path of a streamed run: the `model.call` activity puts the answer it is producing in
 * its heartbeat details (`PartialAnswer`), which subscribers read with `describe()`. Heartbeats
 * are not history: an answer of any length adds no event to the run. The worker sends at most one
 * heartbeat per `maxHeartbeatThrottleInterval` (the worker sets `STREAMING_HEARTBEAT_INTERVAL`),
 * the first at once. The answer's reasoning before its text rides along (`reasoning`), as the
 * run's `reasoning.delta` events. Only a retried attempt's `trip.retry` marker goes to the run's durable stream
 * (one signal), so that every subscriber sees it, in order, before that attempt's text.
 */
import { WorkflowStreamClient } from "@temporalio/workflow-streams/client";
import { RUN_EVENTS_TOPIC, type PartialAnswer, type RunEvent } from "../../core/run-events.js";
import { heartbeatWith } from "../../activities/keep-alive.js";
import type { AnswerPublisher } from "../../deltas/index.js";

/**
 * How often, at most, a worker sends an activity's heartbeat while it streams text: the cadence of
 * text deltas after the first (sent at once), and one heartbeat (a billable action on Temporal
 * Cloud) per interval of a streamed answer. 250 ms measured best: 4 heartbeats a second of answer
 * (100 ms: 10; 1 s: about 1, with deltas a second apart), the first delta as fast either way.
 */
export const STREAMING_HEARTBEAT_INTERVAL = "250 milliseconds";

/** Text arriving within this long after a heartbeat waits for the next one: fewer heartbeat calls on the worker, no later than the worker would send them. */
const COALESCE_MS = 50;

/** How long, at most, a model call waits for the transport to publish its answer's last text before it completes. */
const LAST_PUBLISH_WAIT_MS = 200;

/** The most text (and the most reasoning) one heartbeat carries; beyond it the oldest is dropped (it is in the answer). */
const HEARTBEAT_TEXT_CHARS = 64 * 1024;

/** A trip's answer as the activity produces it, heartbeated as it grows. */
export interface AnswerHeartbeat {
  /** Adds text the model produced. */
  add(text: string): void;
  /**
   * Adds reasoning the model produced. Only the reasoning before the answer's first text is carried
   * (so every watcher sees the reasoning, then the text); later reasoning is in the answer's message.
   */
  addReasoning(text: string): void;
  /** The answer is complete (or failed): no more heartbeats for it; resolves once the transport published its last text (or a moment passed). */
  close(): Promise<void>;
}

/** Text that keeps at most HEARTBEAT_TEXT_CHARS characters, counting from where the dropped part ended. */
class Window {
  text = "";
  from = 0;

  add(delta: string): void {
    this.text += delta;
    if (this.text.length > HEARTBEAT_TEXT_CHARS) {
      this.from += this.text.length - HEARTBEAT_TEXT_CHARS;
      this.text = this.text.slice(-HEARTBEAT_TEXT_CHARS);
    }
  }
}

/**
 * Starts heartbeating a trip's answer, and publishing it through the worker's delta transport
 * (`publisher`, if any: Redis); a retried attempt first puts `trip.retry` on the run's stream (awaited).
 */
export async function answerHeartbeat(
  trip: number,
  attempt: number,
  publisher?: AnswerPublisher,
): Promise<AnswerHeartbeat> {
  if (attempt > 1) await publishRetry(trip, attempt);
  const text = new Window();
  const reasoning = new Window();
  let lastSent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    timer = undefined;
    lastSent = Date.now();
    const thought = reasoning.text === "" ? {} : { reasoning: reasoning.text, reasoningFrom: reasoning.from };
    heartbeatWith({ trip, attempt, from: text.from, text: text.text, ...thought } satisfies PartialAnswer);
  };
  const grew = () => {
    if (timer) return; // the next heartbeat takes this text too
    const wait = lastSent + COALESCE_MS - Date.now();
    if (wait <= 0) send();
    else timer = setTimeout(send, wait);
  };
  return {
    add(delta: string) {
      publisher?.add(delta);
      text.add(delta);
      grew();
    },
    addReasoning(delta: string) {
      if (text.from + text.text.length > 0) return; // after the answer's first text: in the answer's message only
      publisher?.addReasoning?.(delta);
      reasoning.add(delta);
      grew();
    },
    close: async () => {
      clearTimeout(timer);
      const published = publisher?.close();
      if (!published) return;
      // At most a moment: a slow or paused transport never holds the model call up for long.
      let wait: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        published,
        new Promise<void>((resolve) => (wait = setTimeout(resolve, LAST_PUBLISH_WAIT_MS))),
      ]);
      clearTimeout(wait);
    },
  };
}

/** The `trip.retry` marker, as a durable stream event (one Workflow Streams publish signal). */
async function publishRetry(trip: number, attempt: number): Promise<void> {
  const client = WorkflowStreamClient.fromWithinActivity();
  client.topic<RunEvent>(RUN_EVENTS_TOPIC).publish({ type: "trip.retry", trip, attempt }, { forceFlush: true });
  await client[Symbol.asyncDispose]();
}
