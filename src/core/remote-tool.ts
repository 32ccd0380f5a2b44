/**
 * Tools that run outside the agent's worker (`ai.activityTool`, `ai.workflowTool`): what the
 * workflow needs to call them by name on their task queue, as plain data, and how their results
 * read as a tool call's outcome. Pure and workflow-safe.
 */
import type { Duration, RetryPolicy } from "@temporalio/common";
import { refusalReasonOf, type ToolCallResult } from "./tool-result.js";

/** An activity registered by any worker (any SDK language) on `taskQueue`, called by its type name. */
export interface RemoteActivityTarget {
  kind: "activity";
  /** The activity's type name, e.g. `"lookup_order"`. */
  activity: string;
  taskQueue: string;
  /** How long a call may wait for a worker to take it; after it, the call is failed (default: as long as it takes). */
  scheduleToStart?: Duration;
  /** How long one attempt may run (default "1 minute"). */
  startToClose: Duration;
  /** How long the call may take in all, attempts and waits included. */
  scheduleToClose?: Duration;
  /** The activity must heartbeat at least this often (default: no heartbeat). */
  heartbeat?: Duration;
  retry?: RetryPolicy;
}

/** A workflow registered by any worker on `taskQueue`, run as a child workflow by its type name. */
export interface RemoteWorkflowTarget {
  kind: "workflow";
  /** The workflow's type name, e.g. `"check_stock"`. */
  workflow: string;
  taskQueue: string;
  /** How long the child may take in all, retries and continue-as-new included. */
  execution?: Duration;
  /** How long one run of the child may take. */
  run?: Duration;
  retry?: RetryPolicy;
}

/** Where a remote tool's call runs. */
export type RemoteToolTarget = RemoteActivityTarget | RemoteWorkflowTarget;

/** A valid call of a remote tool (nothing has run yet): the workflow calls the target with `args`, the input as the schema parsed it. */
export interface RemoteToolRequest {
  kind: "remote";
  /** The call's input as the model sent it (for the record). */
  input: unknown;
  /** The input after the tool's zod schema (defaults and transforms applied): the activity's or workflow's one argument. */
  args: unknown;
  target: RemoteToolTarget;
  /** The agent's `limits.toolOutputBytes`: a larger result fails the call. */
  outputLimit: number;
}

/**
 * The call's idempotency key: the same as an `ai.tool()`'s `ctx.idempotencyKey`. It is the
 * activity's id (Python: `activity.info().activity_id`) or the child workflow's id
 * (`workflow.info().workflow_id`), the same on every attempt and after a worker crash.
 */
export function remoteIdempotencyKey(workflowId: string, trip: number, callId: string): string {
  return `${workflowId}/trip-${trip}/${callId}`;
}

/** Where the call runs, as the trace and the run's current details say it. */
export function remoteTargetText(target: RemoteToolTarget): string {
  const name = target.kind === "activity" ? target.activity : target.workflow;
  return `${target.kind} ${name} on task queue ${target.taskQueue}`;
}

/**
 * What a remote tool's result comes to: `refused` when it says so (`{ ok: false, reason }`, as for
 * any tool), `failed` when it is over the output limit, else `ok`.
 */
export function remoteResult(name: string, output: unknown, outputLimit: number): ToolCallResult {
  const plain: unknown = output === undefined ? null : output;
  const bytes = new TextEncoder().encode(JSON.stringify(plain)).length;
  if (bytes > outputLimit)
    return {
      status: "failed",
      error: `The result of "${name}" is ${bytes} bytes, over limits.toolOutputBytes (${outputLimit}): it was dropped. Return less.`,
    };
  const reason = refusalReasonOf(plain);
  return reason === undefined ? { status: "ok", output: plain } : { status: "refused", output: plain, reason };
}
