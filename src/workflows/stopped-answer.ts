/**
 * A session message stopped mid-answer (`cancel-message`) keeps the text its model call had
 * streamed: the stop waits for the call to end (its cancellation type), the call is cancelled
 * with that text as its details (`StoppedAnswer`), and the message's conversation gets it as the
 * trip's answer, so the next model call sees it before the next question and the chat's history
 * shows it. Workflow-safe.
 */
import { ActivityFailure, CancelledFailure, patched } from "@temporalio/workflow";
import type { StoppedAnswer } from "../core/activity-types.js";
import { recordAnswer, type RunState } from "../core/run-state.js";
import { stoppableModelCalls, type ActivityProxies } from "./activity-proxies.js";
import type { TripLoop } from "./trip-context.js";

/** Marks histories whose stopped answers are kept in the conversation (before it: dropped). */
const STOPPED_ANSWER_PATCH = "durable-agent.session-stopped-answer";

/** The model calls of a trip: in a session (with the patch), ones whose stop waits for the text they had; else the loop's. */
export function modelCallsOf(loop: TripLoop): ActivityProxies {
  const { keepStoppedAnswers: keep } = loop;
  return keep && !loop.spec.localModel && (keep === "decided" || patched(STOPPED_ANSWER_PATCH))
    ? stoppableModelCalls(loop.spec)
    : loop.model;
}

/** The text a model call stopped on request had streamed, from its cancellation's details; undefined for anything else. */
export function stoppedAnswerOf(error: unknown): StoppedAnswer | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof CancelledFailure)) return undefined;
  const details: unknown = error.cause.details[0];
  if (typeof details !== "object" || details === null) return undefined;
  const { role, content } = details as Partial<StoppedAnswer>;
  return role === "assistant" && typeof content === "string" && content !== "" ? { role, content } : undefined;
}

/** Records a stopped model call's text as the trip's answer, then goes on with the cancellation. */
export function keepStoppedAnswer(run: RunState, error: unknown): never {
  const stopped = stoppedAnswerOf(error);
  if (stopped) recordAnswer(run, { role: "assistant", content: stopped.content });
  throw error;
}
