/**
 * A run's timeline: its steps on one time axis, from its history (model calls, tool calls,
 * sub-agents, other activities, with their failed attempts) and its trace (waits for approval,
 * re-prompts, backstops, the calls the provider ran inside a model call). The history gives times; the trace's marks have none, so each is placed
 * where its trip's model call ended (a before-phase backstop: where the next one was scheduled).
 */
import { ACTIVITY } from "../../core/constants.js";
import type { TraceEvent } from "../../core/types.js";
import type { RunTimeline, TimelineStep, TimelineStepKind } from "../api-types.js";
import { tripOfModelStep, type HistoryStep, type RunHistory } from "./run-history.js";

type Event<T extends TraceEvent["type"]> = Extract<TraceEvent, { type: T }>;

const KIND_OF_ACTIVITY: Record<string, TimelineStepKind> = {
  [ACTIVITY.modelCall]: "model",
  [ACTIVITY.toolExecute]: "tool",
  [ACTIVITY.backstopRun]: "backstop",
};

/**
 * The timeline of a run (or a session's runs, in order) from its histories and, for a run, its
 * trace from trip `fromTrip` on (a fork's trace starts with the recorded run's, which ran elsewhere).
 */
export function timelineOf(
  histories: readonly RunHistory[],
  trace: readonly TraceEvent[],
  { fromTrip = 0, now = Date.now() }: { fromTrip?: number; now?: number } = {},
): RunTimeline {
  const first = histories[0];
  const start = first?.startedAt ?? now;
  const end = histories.at(-1)?.closedAt ?? now;
  const steps: TimelineStep[] = [];
  const all = histories.flatMap((history) => history.steps);
  let trip: number | undefined; // a tool call or backstop belongs to the trip of the model call before it
  for (const step of all) {
    trip = tripOfModelStep(step) ?? trip;
    steps.push(...stepsOf(step, start, now, trip));
  }
  const own = trace.filter((event) => event.trip >= fromTrip);
  steps.push(...traceSteps(histories.length === 1 ? all : [], own, start, now));
  steps.sort((a, b) => a.startMs - b.startMs);
  return { startedAt: new Date(start).toISOString(), durationMs: Math.max(0, end - start), steps };
}

/** A history step as the timeline shows it: its failed attempts (when it retried), then the step itself. */
function stepsOf(step: HistoryStep, start: number, now: number, trip: number | undefined): TimelineStep[] {
  const kind = step.kind === "child" ? "subagent" : (KIND_OF_ACTIVITY[step.type] ?? "activity");
  const label = step.kind === "child" ? `sub-agent ${step.summary}` : step.summary || step.type;
  const shown: TimelineStep[] = [];
  const lastStart = step.startedAt ?? step.scheduledAt;
  if (step.attempts > 1)
    shown.push({
      kind: "retry",
      label: `${label}: ${step.attempts - 1} failed ${step.attempts === 2 ? "attempt" : "attempts"}`,
      ...(trip ? { trip } : {}),
      startMs: step.scheduledAt - start,
      durationMs: Math.max(0, lastStart - step.scheduledAt),
      outcome: step.lastFailure ? `retried after: ${step.lastFailure}` : "retried",
      state: "failed",
    });
  const from = step.attempts > 1 ? lastStart : step.scheduledAt;
  shown.push({
    kind,
    label,
    ...(trip ? { trip } : {}),
    startMs: from - start,
    durationMs: Math.max(0, (step.closedAt ?? now) - from),
    outcome: step.failure ? `${step.outcome}: ${step.failure}` : step.outcome,
    state: step.outcome === "completed" ? "ok" : step.outcome === "running" ? "running" : "failed",
  });
  return shown;
}

/**
 * The trace's steps: approval waits (from the call's check that asked for it to the decision); re-prompts,
 * backstops and provider-run tool calls as marks.
 */
function traceSteps(
  steps: readonly HistoryStep[],
  trace: readonly TraceEvent[],
  start: number,
  now: number,
): TimelineStep[] {
  const models = new Map<number, HistoryStep>();
  for (const step of steps) {
    const trip = tripOfModelStep(step);
    if (trip) models.set(trip, step);
  }
  const answeredAt = (trip: number) => models.get(trip)?.closedAt ?? models.get(trip)?.scheduledAt ?? start;
  const askedAt = (trip: number) => models.get(trip + 1)?.scheduledAt ?? answeredAt(trip);
  const decisions = new Map<string, Event<"approval">>();
  for (const event of trace)
    if (event.type === "approval" && event.outcome !== "requested") decisions.set(event.callId, event);
  const shown: TimelineStep[] = [];
  for (const event of trace) {
    if (event.type === "approval" && event.outcome === "requested") {
      // The wait starts when the call's first tool.execute (which found that it needs approval) returned.
      const answered = answeredAt(event.trip);
      const asking = steps.find(
        (s) =>
          s.type === ACTIVITY.toolExecute && s.summary.startsWith(`tool ${event.tool}`) && s.scheduledAt >= answered,
      );
      const from = asking?.closedAt ?? answered;
      const decided = decisions.get(event.callId);
      const until = decided?.decidedAt ? Date.parse(decided.decidedAt) : decided ? from : now;
      shown.push({
        kind: "approval",
        label: `approval ${event.tool}`,
        trip: event.trip,
        startMs: from - start,
        durationMs: Math.max(0, until - from),
        outcome: decided ? `${decided.outcome}${decided.by ? ` by ${decided.by}` : ""}` : "waiting",
        state: !decided ? "running" : decided.outcome === "approved" ? "ok" : "failed",
      });
    } else if (event.type === "reprompt")
      shown.push(
        mark("reprompt", `re-prompt (${event.kind})`, event.trip, answeredAt(event.trip) - start, brief(event.text)),
      );
    else if (event.type === "tool.finished" && event.provider)
      // The provider ran it inside the trip's model call: no activity of ours, so a mark where that call ended.
      shown.push(
        mark(
          "tool",
          `tool ${event.tool} (run by the provider)`,
          event.trip,
          answeredAt(event.trip) - start,
          event.status,
        ),
      );
    else if (event.type === "backstop") {
      const at = event.phase === "before" ? askedAt(event.trip) : answeredAt(event.trip);
      shown.push(mark("backstop", `backstop ${event.name} (${event.phase})`, event.trip, at - start, event.outcome));
    }
  }
  return shown;
}

function mark(kind: TimelineStepKind, label: string, trip: number, startMs: number, outcome: string): TimelineStep {
  return { kind, label, ...(trip ? { trip } : {}), startMs, durationMs: 0, outcome, state: "mark" };
}

/** A re-prompt's text, cut to a line (the conversation shows it whole). */
const brief = (text: string) => (text.length > 90 ? `${text.slice(0, 89)}…` : text);
