/**
 * Follows a run's history with long polls (`GetWorkflowExecutionHistory` with `waitNewEvent`):
 * the server answers when the history grows, so a follower costs one request per batch of new
 * events, and none while the run waits. From the events it keeps what a stream reader needs:
 * whether a workflow task completed (durable events may be new), whether one is in flight (a
 * query now would wait in the server's small buffer), whether a model call is under way (its
 * heartbeats carry the answer's text), and whether the run closed or continued as new.
 */
import type { Client } from "@temporalio/client";
import type { temporal } from "@temporalio/proto";
import { ACTIVITY } from "../../core/constants.js";
import { loadTemporalClient, loadTemporalProto } from "../../run-reads/index.js";
import { abortableCall } from "./abortable-call.js";

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What a run's history says so far. */
export interface HistoryState {
  /** A workflow task completed since the durable events were last read. */
  durableMayHaveGrown: boolean;
  /** A workflow task is scheduled or running: a query now would be buffered until it completes. */
  workflowTaskInFlight: boolean;
  /** Scheduled `model.call` activities that have not closed, by their scheduled event id. */
  readonly openModelCalls: Set<string>;
  /** Other scheduled activities (tool calls, backstops) that have not closed: most end quickly, with a workflow task after them. */
  readonly openOtherActivities: Set<string>;
  /** When the history last grew (`Date.now()`). */
  grewAt: number;
  /** The run closed without a next run to follow. */
  closed: boolean;
  /** The run chain followed: its first run's id (a reused workflow id starts another), once the first page came. */
  chain: string | undefined;
}

/** gRPC's NOT_FOUND status code. */
const NOT_FOUND = 5;

/** Follows the history of `workflowId`'s latest run, and of the runs it continues as. */
export class HistoryFollower {
  readonly state: HistoryState = {
    durableMayHaveGrown: true,
    // Not known before the first page: nothing is read until it came.
    workflowTaskInFlight: true,
    openModelCalls: new Set(),
    openOtherActivities: new Set(),
    grewAt: 0,
    closed: false,
    chain: undefined,
  };
  /** The run followed: the latest at first (the page token then names it), the next one after a continue-as-new. */
  #runId: string | undefined;
  #nextPageToken: Uint8Array | undefined;
  #first = true;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
  ) {}

  /**
   * Waits for the history's next events (the first call returns the history so far, page by
   * page) and applies them to `state`. Resolves with no events when the server's long poll timed
   * out. Throws the SDK's `WorkflowNotFoundError` for a workflow that does not exist.
   */
  async next(signal: AbortSignal): Promise<number> {
    const { temporal: proto } = await loadTemporalProto();
    const request: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest = {
      namespace: this.client.options.namespace,
      execution: { workflowId: this.workflowId, runId: this.#runId },
      nextPageToken: this.#nextPageToken,
      waitNewEvent: true,
      skipArchival: true,
      historyEventFilterType: proto.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
    };
    let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      response = await abortableCall(this.client, signal, () =>
        this.client.workflowService.getWorkflowExecutionHistory(request),
      );
    } catch (error) {
      if ((error as { code?: number }).code === NOT_FOUND) {
        const { WorkflowNotFoundError } = await loadTemporalClient();
        throw new WorkflowNotFoundError((error as Error).message, this.workflowId, this.#runId);
      }
      throw error;
    }
    const events = response.history?.events ?? [];
    this.#nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    for (const event of events) this.#apply(event);
    if (this.#first || events.length > 0) this.state.grewAt = Date.now();
    if (this.#first && events.length > 0) this.#first = false;
    return events.length;
  }

  #apply(event: HistoryEvent): void {
    const state = this.state;
    if (event.workflowExecutionStartedEventAttributes) {
      const started = event.workflowExecutionStartedEventAttributes;
      state.chain ??= started.firstExecutionRunId || started.originalExecutionRunId || this.workflowId;
    } else if (event.workflowTaskScheduledEventAttributes || event.workflowTaskStartedEventAttributes) {
      state.workflowTaskInFlight = true;
    } else if (event.workflowTaskCompletedEventAttributes) {
      state.workflowTaskInFlight = false;
      state.durableMayHaveGrown = true;
    } else if (event.workflowTaskFailedEventAttributes || event.workflowTaskTimedOutEventAttributes) {
      state.workflowTaskInFlight = false;
    } else if (event.activityTaskScheduledEventAttributes) {
      const modelCall = event.activityTaskScheduledEventAttributes.activityType?.name === ACTIVITY.modelCall;
      (modelCall ? state.openModelCalls : state.openOtherActivities).add(String(event.eventId));
    } else {
      const closedActivity =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes ??
        event.activityTaskCanceledEventAttributes;
      if (closedActivity) {
        state.openModelCalls.delete(String(closedActivity.scheduledEventId));
        state.openOtherActivities.delete(String(closedActivity.scheduledEventId));
      } else this.#applyClose(event);
    }
  }

  #applyClose(event: HistoryEvent): void {
    const close =
      event.workflowExecutionCompletedEventAttributes ??
      event.workflowExecutionFailedEventAttributes ??
      event.workflowExecutionTimedOutEventAttributes ??
      event.workflowExecutionContinuedAsNewEventAttributes;
    const ended =
      close ?? event.workflowExecutionCanceledEventAttributes ?? event.workflowExecutionTerminatedEventAttributes;
    if (!ended) return;
    this.state.openModelCalls.clear();
    this.state.openOtherActivities.clear();
    this.state.workflowTaskInFlight = false;
    this.state.durableMayHaveGrown = true;
    const nextRunId = close?.newExecutionRunId;
    if (nextRunId) {
      // Continued as new (or retried): the stream's offsets go on in the next run's history.
      this.#runId = nextRunId;
      this.#nextPageToken = undefined;
    } else {
      this.state.closed = true;
    }
  }
}
