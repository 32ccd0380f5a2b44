/**
 * A remote tool's call (`ai.activityTool`, `ai.workflowTool`): after `tool.execute` checked its
 * input (and a person approved it, where asked), the run calls the activity or workflow by its
 * type name on its own task queue, served by any worker in any SDK language. Workflow-safe.
 */
import {
  ActivityFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  log,
  ParentClosePolicy,
  proxyActivities,
  TimeoutFailure,
  WorkflowIdReusePolicy,
  workflowInfo,
} from "@temporalio/workflow";
import {
  remoteIdempotencyKey,
  remoteResult,
  remoteTargetText,
  type RemoteActivityTarget,
  type RemoteToolRequest,
  type RemoteWorkflowTarget,
} from "../core/remote-tool.js";
import { defined } from "../core/defined.js";
import { toolCallRecord } from "../core/tool-result.js";
import type { RequestedToolCall, ToolCallRecord } from "../core/types.js";
import type { TripLoop } from "./trip-context.js";

/** An activity tool's attempt runs this long at most unless the tool says otherwise. */
const DEFAULT_START_TO_CLOSE = "1 minute";

/**
 * Runs the call on its target and records what it came to: the result (`refused` when it says
 * `{ ok: false, reason }`), or `failed` with why (the target failed, or no worker took it within
 * `timeouts.scheduleToStart`). Cancelling the run cancels the call.
 */
export async function runRemoteTool(
  loop: TripLoop,
  call: RequestedToolCall,
  trip: number,
  request: RemoteToolRequest,
): Promise<ToolCallRecord> {
  const { target } = request;
  const key = remoteIdempotencyKey(workflowInfo().workflowId, trip, call.id);
  const name = target.kind === "activity" ? target.activity : target.workflow;
  loop.run.trace.push({
    trip,
    type: "remote.started",
    tool: call.name,
    callId: call.id,
    target: target.kind,
    name,
    taskQueue: target.taskQueue,
  });
  loop.events.syncTrace();
  const summary = `tool ${call.name}: ${remoteTargetText(target)}`;
  try {
    // The run's current details say which queue the call waits on (no worker there: it waits, as Temporal does).
    const output = await loop.progress.step(`trip ${trip}: tool ${call.name} → ${remoteTargetText(target)}`, () =>
      target.kind === "activity"
        ? callActivity(target, key, summary, request.args)
        : callWorkflow(target, key, summary, request.args),
    );
    return toolCallRecord(call, trip, {
      input: request.input,
      ...remoteResult(call.name, output, request.outputLimit),
    });
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure || error instanceof ChildWorkflowFailure))
      throw error;
    const why = failureText(target, error);
    log.warn("remote tool call failed", { tool: call.name, target: remoteTargetText(target), error: why });
    return { id: call.id, name: call.name, input: request.input, status: "failed", error: why, trip };
  }
}

/** The activity by name on its task queue; its id is the call's idempotency key. */
function callActivity(target: RemoteActivityTarget, key: string, summary: string, args: unknown): Promise<unknown> {
  const activities = proxyActivities<Record<string, (input: unknown) => Promise<unknown>>>({
    taskQueue: target.taskQueue,
    startToCloseTimeout: target.startToClose ?? DEFAULT_START_TO_CLOSE,
    ...defined({
      scheduleToStartTimeout: target.scheduleToStart,
      scheduleToCloseTimeout: target.scheduleToClose,
      heartbeatTimeout: target.heartbeat,
      retry: target.retry,
    }),
    activityId: key,
  });
  return activities[target.activity]!.executeWithOptions({ summary }, [args]);
}

/** The workflow by name on its task queue, as a child; its workflow id is the call's idempotency key. */
function callWorkflow(target: RemoteWorkflowTarget, key: string, summary: string, args: unknown): Promise<unknown> {
  return executeChild(target.workflow, {
    taskQueue: target.taskQueue,
    workflowId: key,
    args: [args],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    staticSummary: summary,
    ...defined({
      workflowExecutionTimeout: target.execution,
      workflowRunTimeout: target.run,
      retry: target.retry,
    }),
  });
}

/** Why the call failed, as the model reads it: the target's own message, or which queue had no worker in time. */
function failureText(target: RemoteToolRequest["target"], error: ActivityFailure | ChildWorkflowFailure): string {
  const cause = error.cause;
  if (target.kind === "activity" && cause instanceof TimeoutFailure && cause.timeoutType === "SCHEDULE_TO_START")
    return `No worker took the ${remoteTargetText(target)} within timeouts.scheduleToStart (${String(target.scheduleToStart)}).`;
  if (cause instanceof TimeoutFailure) return `The ${remoteTargetText(target)} timed out: ${cause.message}.`;
  return cause?.message || error.message;
}
