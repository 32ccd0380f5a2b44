/** The typed events a run streams to its clients. Workflow-safe. */
import type { RunResult, TraceEvent } from "./types.js";

/** The Workflow Streams topic the events are published on. */
export const RUN_EVENTS_TOPIC = "run-events";

/**
 * One event of a run's stream. Every trace event is also a stream event; besides them:
 * - `trip.started`: a model call is about to start;
 * - `text.delta`: answer text as the model produces it (`attempt` counts activity attempts);
 * - `trip.retry`: the model call of `trip` is being retried; drop text of earlier attempts of that trip;
 * - `tool.started`: a tool call is about to run;
 * - `run.finished`: the run's result.
 */
export type RunEvent = (
  | TraceEvent
  | { type: "trip.started"; trip: number }
  | { type: "text.delta"; trip: number; attempt: number; text: string }
  | { type: "trip.retry"; trip: number; attempt: number }
  | { type: "tool.started"; trip: number; tool: string; callId: string }
  | { type: "run.finished"; result: RunResult }
) & { agents?: string[] };

/**
 * A run event with its position in its run's stream (the offset to resume after), and the agent
 * path it came from (`["triage", "billing"]`: the billing sub-agent called by triage). Events of
 * sub-agent runs, merged into their caller's stream, carry their own run's `workflowId`.
 */
export type StreamedRunEvent = RunEvent & { offset: number; agents?: string[]; workflowId?: string };
