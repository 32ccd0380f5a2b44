/**
 * What a run's history says of its steps, in one pass over its events: each activity (named by
 * the summary the workflow gives it: "model <id> · trip <n>", "tool <name>", "backstop <name>")
 * with when it was scheduled, when its last attempt started, how many attempts it took and how it
 * closed, and each sub-agent's child workflow. The conversation's latencies and the run's
 * timeline are read from it.
 */
import type { Client } from "@temporalio/client";
import type proto from "@temporalio/proto";
import { optionalTsToMs } from "@temporalio/common/lib/time.js";
import { loadPayloadDecoding } from "../../run-reads/index.js";
import { ACTIVITY } from "../../core/constants.js";
import { defined } from "../../core/defined.js";
import type { ToolCallRecord, TraceEvent } from "../../core/types.js";
import { historyEvents } from "../../datasets/read-run.js";
import type { Latencies } from "./conversation.js";

/** How a step of the history ended (or that it has not yet). */
export type StepOutcome = "completed" | "failed" | "timed-out" | "cancelled" | "running";

/** An activity or a child workflow of the run, with its times (ms since the epoch). */
export interface HistoryStep {
  kind: "activity" | "child";
  /** The activity's type (`model.call`, `tool.execute`, ...) or the child workflow's. */
  type: string;
  /** The workflow's summary of it ("model gpt-4o · trip 2"), or the child's workflow id. */
  summary: string;
  scheduledAt: number;
  /** When its last attempt started. */
  startedAt?: number;
  closedAt?: number;
  /** Attempts made (1 when the first one did it). */
  attempts: number;
  /** The last failed attempt's message, when an attempt failed before the last one. */
  lastFailure?: string;
  outcome: StepOutcome;
  /** Its failure's message, when it failed. */
  failure?: string;
}

/** A run's history, read for its steps. */
export interface RunHistory {
  startedAt: number;
  /** When the run closed (completed, failed, continued as new, ...); undefined while it runs. */
  closedAt?: number;
  steps: HistoryStep[];
}

async function summaryOf(
  client: Client,
  payload: proto.temporal.api.common.v1.IPayload | null | undefined,
): Promise<string> {
  if (!payload) return "";
  const { decodeArrayFromPayloads } = await loadPayloadDecoding();
  const [summary] = await decodeArrayFromPayloads(client.options.loadedDataConverter, [payload]).catch(() => [""]);
  return typeof summary === "string" ? summary : "";
}

type Event = proto.temporal.api.history.v1.IHistoryEvent;
/** The attributes of an event that closes a step: the step's event id and its failure, if any (undefined when the event is of another kind). */
type Closing<Id extends string> =
  ({ failure?: { message?: string | null } | null } & Partial<Record<Id, unknown>>) | null | undefined;

/** The event that closes an activity, with its outcome. */
function activityClose(event: Event): { id: string; outcome: StepOutcome; failure?: string } | undefined {
  const closing: Array<[Closing<"scheduledEventId">, StepOutcome]> = [
    [event.activityTaskCompletedEventAttributes, "completed"],
    [event.activityTaskFailedEventAttributes, "failed"],
    [event.activityTaskTimedOutEventAttributes, "timed-out"],
    [event.activityTaskCanceledEventAttributes, "cancelled"],
  ];
  for (const [attributes, outcome] of closing)
    if (attributes)
      return {
        id: String(attributes.scheduledEventId),
        outcome,
        ...(attributes.failure?.message ? { failure: attributes.failure.message } : {}),
      };
  return undefined;
}

/** The event that closes a child workflow, with its outcome. */
function childClose(event: Event): { id: string; outcome: StepOutcome; failure?: string } | undefined {
  const closing: Array<[Closing<"initiatedEventId">, StepOutcome]> = [
    [event.childWorkflowExecutionCompletedEventAttributes, "completed"],
    [event.childWorkflowExecutionFailedEventAttributes, "failed"],
    [event.childWorkflowExecutionTimedOutEventAttributes, "timed-out"],
    [event.childWorkflowExecutionCanceledEventAttributes, "cancelled"],
    [event.childWorkflowExecutionTerminatedEventAttributes, "failed"],
  ];
  for (const [attributes, outcome] of closing)
    if (attributes)
      return {
        id: String(attributes.initiatedEventId),
        outcome,
        ...(attributes.failure?.message ? { failure: attributes.failure.message } : {}),
      };
  return undefined;
}

/** True for the events that close a run. */
const closesRun = (event: Event) =>
  !!(
    event.workflowExecutionCompletedEventAttributes ??
    event.workflowExecutionFailedEventAttributes ??
    event.workflowExecutionTimedOutEventAttributes ??
    event.workflowExecutionCanceledEventAttributes ??
    event.workflowExecutionTerminatedEventAttributes ??
    event.workflowExecutionContinuedAsNewEventAttributes
  );

/** Reads the run's steps from its history. */
export async function readRunHistory(client: Client, workflowId: string, runId: string): Promise<RunHistory> {
  const byId = new Map<string, HistoryStep>();
  const steps: HistoryStep[] = [];
  let startedAt: number | undefined;
  let closedAt: number | undefined;
  for await (const event of historyEvents(client, workflowId, runId)) {
    const at = optionalTsToMs(event.eventTime) ?? 0;
    startedAt ??= at;
    const scheduled = event.activityTaskScheduledEventAttributes;
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (scheduled || child) {
      const step: HistoryStep = scheduled
        ? {
            kind: "activity",
            type: scheduled.activityType?.name ?? "",
            summary: await summaryOf(client, event.userMetadata?.summary),
            scheduledAt: at,
            attempts: 1,
            outcome: "running",
          }
        : {
            kind: "child",
            type: child!.workflowType?.name ?? "",
            summary: child!.workflowId ?? "",
            scheduledAt: at,
            attempts: 1,
            outcome: "running",
          };
      byId.set(String(event.eventId), step);
      steps.push(step);
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const step = byId.get(String(started.scheduledEventId));
      if (step) {
        step.startedAt = at;
        step.attempts = started.attempt ?? 1;
        if (started.lastFailure?.message) step.lastFailure = started.lastFailure.message;
      }
      continue;
    }
    const childStarted = event.childWorkflowExecutionStartedEventAttributes;
    if (childStarted) {
      const step = byId.get(String(childStarted.initiatedEventId));
      if (step) step.startedAt = at;
      continue;
    }
    const closed = activityClose(event) ?? childClose(event);
    const step = closed ? byId.get(closed.id) : undefined;
    if (closed && step) {
      step.closedAt = at;
      step.outcome = closed.outcome;
      if (closed.failure) step.failure = closed.failure;
      continue;
    }
    if (closesRun(event)) closedAt = at;
  }
  return { startedAt: startedAt ?? Date.now(), ...defined({ closedAt }), steps };
}

/** The trip a model call's summary names ("model gpt-4o · trip 2"), if it is one. */
export function tripOfModelStep(step: HistoryStep): number | undefined {
  if (step.type !== ACTIVITY.modelCall) return undefined;
  const trip = Number(/trip (\d+)/.exec(step.summary)?.[1]);
  return trip || undefined;
}

/**
 * The model latencies by trip and tool latencies by call id (tool activities matched to the run's
 * calls by name, in order). A call that asked for approval ran twice (a check that found it needs
 * approval, then, approved, the call): its latency is the second's.
 */
export function latenciesOf(
  history: RunHistory,
  toolCalls: readonly ToolCallRecord[],
  trace: readonly TraceEvent[] = [],
): Latencies {
  const model = new Map<number, number>();
  const tools: { name: string; ms: number }[] = [];
  for (const step of history.steps) {
    if (step.closedAt === undefined) continue;
    const ms = step.closedAt - step.scheduledAt;
    const trip = tripOfModelStep(step);
    if (trip) model.set(trip, ms);
    else if (step.type === ACTIVITY.toolExecute) {
      const name = /^tool (\S+)/.exec(step.summary)?.[1];
      if (name) tools.push({ name, ms });
    }
  }
  const byCall = new Map<string, number>();
  const asked = new Set(trace.flatMap((e) => (e.type === "approval" && e.outcome === "requested" ? [e.callId] : [])));
  const take = (name: string) => {
    const index = tools.findIndex((tool) => tool.name === name);
    return index < 0 ? undefined : tools.splice(index, 1)[0]!.ms;
  };
  for (const call of toolCalls) {
    if (asked.has(call.id)) take(call.name); // the check
    if (call.status === "refused") continue;
    const ms = take(call.name);
    if (ms !== undefined) byCall.set(call.id, ms);
  }
  return { model, tools: byCall };
}
