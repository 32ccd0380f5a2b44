/** The typed events a run streams to its clients. Workflow-safe. */
import type { RunResult, TraceEvent } from "./types.js";

/** The Workflow Streams topic the events are published on. */
export const RUN_EVENTS_TOPIC = "run-events";

/**
 * One event of a run's stream. Every trace event is also a stream event; besides them:
 * - `trip.started`: a model call is about to start;
 * - `text.delta`: answer text as the model produces it (`attempt` counts activity attempts);
 * - `reasoning.delta`: the answer's reasoning as the model produces it, before its text (what the
 *   answer in flight carried; a subscriber that did not see it live gets the rest from the answer's
 *   `model.answered`, once, just before it; a run that does not stream text publishes it whole, as
 *   attempt 0, before its text);
 * - `trip.retry`: the model call of `trip` is being retried; drop text of earlier attempts of that trip;
 * - `tool.started`: a tool call is about to run;
 * - `run.finished`: the run's result;
 * - `message.failed`: a session message ended with a typed error (the session takes the next one).
 */
export type RunEvent = (
  | TraceEvent
  | { type: "trip.started"; trip: number }
  | { type: "text.delta"; trip: number; attempt: number; text: string }
  | { type: "reasoning.delta"; trip: number; attempt: number; text: string }
  | { type: "trip.retry"; trip: number; attempt: number }
  | { type: "tool.started"; trip: number; tool: string; callId: string }
  | { type: "run.finished"; result: RunResult }
  | { type: "message.failed"; index: number; error: { name: string; message: string } }
) & { agents?: string[] };

/**
 * The answer the `model.call` activity is producing, as it puts it in its heartbeat details while
 * the run streams text (`streamText`): not history, read by subscribers with `describe()`. `text`
 * is the answer's text from character `from` on (the part before it was dropped once the answer
 * outgrew what one heartbeat carries; a subscriber further behind takes it from `model.answered`).
 */
export interface PartialAnswer {
  trip: number;
  /** The activity attempt producing it (attempts after the first follow a `trip.retry` event). */
  attempt: number;
  from: number;
  text: string;
  /**
   * The answer's reasoning from character `reasoningFrom` on (dropped before it, as `text` before
   * `from`), when the model reasons: what it streamed before the answer's first text.
   */
  reasoning?: string;
  /** Where `reasoning` starts in the answer's reasoning; 0 when absent. */
  reasoningFrom?: number;
}

/**
 * A run event with its position in its run's stream (`offset`), and the agent path it came from
 * (`["triage", "billing"]`: the billing sub-agent called by triage). Events of sub-agent runs,
 * merged into their caller's stream, carry their own run's `workflowId` and offsets. `id` is where
 * the merged stream is after this event, sub-agents included (set on every event a stream
 * yields): the SSE event id, and the `after` option that resumes just after it.
 */
export type StreamedRunEvent = RunEvent & { offset: number; agents?: string[]; workflowId?: string; id?: string };

/** Whether a decoded value (heartbeat details, a Redis chunk) is a partial answer. */
export function isPartialAnswer(value: unknown): value is PartialAnswer {
  const v = value as PartialAnswer | undefined;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.trip === "number" &&
    typeof v.attempt === "number" &&
    typeof v.from === "number" &&
    typeof v.text === "string" &&
    (v.reasoning === undefined || typeof v.reasoning === "string") &&
    (v.reasoningFrom === undefined || typeof v.reasoningFrom === "number")
  );
}
