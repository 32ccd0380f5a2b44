/**
 * `ai.activityTool()` and `ai.workflowTool()`: tools whose calls run an activity or a workflow of
 * another worker, in any SDK language, by its type name on its own task queue. They are tools like
 * any `ai.tool()` (the input is checked with the zod schema on the agent's worker, approvals and
 * the contract apply); only the call itself is made by the run's workflow, not by the agent's worker.
 */
import type { Duration, RetryPolicy } from "@temporalio/common";
import type { z } from "zod";
import { defineTool, type Tool } from "../agent/define-tool.js";
import { checkKnownKeys, type KnownKeys } from "../options/known-keys.js";
import type { RemoteActivityTarget, RemoteToolTarget, RemoteWorkflowTarget } from "../core/remote-tool.js";
import { defined } from "../core/defined.js";
import { durationMs, durationProblem } from "../duration.js";
import { AgentOptionsError } from "../errors.js";

/** What every remote tool takes: as `ai.tool()`, without `execute`. */
export interface RemoteToolOptions<Schema extends z.ZodType> {
  /** The name the model calls the tool by: letters, digits, `_` and `-`, at most 64. */
  name: string;
  /** Tells the model what the tool does and when to call it. */
  description?: string;
  /** A zod (v4) schema: the call's input is checked with it first; the parsed input is the activity's (or workflow's) one argument. */
  input: Schema;
  /** The task queue the activity's (or workflow's) workers poll. */
  taskQueue: string;
  /** Temporal's retry policy for the call (default: the activity's or child workflow's default). */
  retry?: RetryPolicy;
  /** Pause the run before the call until a person approves it, as for `ai.tool()`. */
  needsApproval?: boolean | ((input: z.output<Schema>) => boolean | Promise<boolean>);
  /** How long a call waits for approval before it is refused; default: as long as it takes. */
  approvalTimeout?: Duration;
}

/** Options of `ai.activityTool()`. */
export interface ActivityToolOptions<Schema extends z.ZodType> extends RemoteToolOptions<Schema> {
  /** The activity's type name, as its worker registered it (Python: `@activity.defn(name="lookup_order")`). */
  activity: string;
  /** The call's timeouts. */
  timeouts?: ActivityToolTimeouts;
}

/** Timeouts of an activity tool's call. */
export interface ActivityToolTimeouts {
  /** How long a call may wait for a worker of the task queue; after it the model gets a failed call. Default: as long as it takes. */
  scheduleToStart?: Duration;
  /** How long one attempt may run. Default "1 minute". */
  startToClose?: Duration;
  /** How long the call may take in all, retries and waits included. */
  scheduleToClose?: Duration;
  /** The activity must heartbeat at least this often (so a crashed worker's call is retried soon). Default: no heartbeat. */
  heartbeat?: Duration;
}

/** Options of `ai.workflowTool()`. */
export interface WorkflowToolOptions<Schema extends z.ZodType> extends RemoteToolOptions<Schema> {
  /** The workflow's type name, as its worker registered it (Python: `@workflow.defn(name="check_stock")`). */
  workflow: string;
  /** The call's timeouts. */
  timeouts?: WorkflowToolTimeouts;
}

/** Timeouts of a workflow tool's call. */
export interface WorkflowToolTimeouts {
  /** How long the child workflow may take in all. Default: no limit. */
  execution?: Duration;
  /** How long one run of the child workflow may take. Default: no limit. */
  run?: Duration;
}

const COMMON_KEYS = {
  name: true,
  description: true,
  input: true,
  taskQueue: true,
  retry: true,
  needsApproval: true,
  approvalTimeout: true,
  timeouts: true,
} as const;
const ACTIVITY_TOOL_KEYS = { ...COMMON_KEYS, activity: true } as const satisfies Record<
  keyof ActivityToolOptions<z.ZodType>,
  true
>;
const WORKFLOW_TOOL_KEYS = { ...COMMON_KEYS, workflow: true } as const satisfies Record<
  keyof WorkflowToolOptions<z.ZodType>,
  true
>;
const ACTIVITY_TIMEOUT_KEYS = {
  scheduleToStart: true,
  startToClose: true,
  scheduleToClose: true,
  heartbeat: true,
} as const satisfies Record<keyof ActivityToolTimeouts, true>;
const WORKFLOW_TIMEOUT_KEYS = { execution: true, run: true } as const satisfies Record<
  keyof WorkflowToolTimeouts,
  true
>;

/**
 * Defines a tool whose call runs the activity `activity`, registered by any worker (any SDK
 * language) on `taskQueue`. The activity gets the input as the schema parsed it; its id is the
 * call's idempotency key. Its result goes to the model; `{ ok: false, reason }` is a refusal, a
 * failure (retries used up, or no worker within `timeouts.scheduleToStart`) a failed call.
 */
export function defineActivityTool<Schema extends z.ZodType>(
  options: ActivityToolOptions<Schema>,
): Tool<z.output<Schema>, unknown> {
  const call = remoteCall("ai.activityTool()", options, ACTIVITY_TOOL_KEYS);
  const timeouts = checkTimeouts(call, options.timeouts, ACTIVITY_TIMEOUT_KEYS);
  const target: RemoteActivityTarget = {
    kind: "activity",
    activity: typeName(call, "activity", options.activity),
    taskQueue: options.taskQueue,
    startToClose: timeouts.startToClose ?? "1 minute",
    ...defined({
      scheduleToStart: timeouts.scheduleToStart,
      scheduleToClose: timeouts.scheduleToClose,
      heartbeat: timeouts.heartbeat,
      retry: options.retry,
    }),
  };
  return remoteTool(options, target);
}

/**
 * Defines a tool whose call runs the workflow `workflow`, registered by any worker on `taskQueue`,
 * as a child workflow of the run (cancelling the run cancels it). The workflow gets the input as
 * the schema parsed it; its workflow id is the call's idempotency key.
 */
export function defineWorkflowTool<Schema extends z.ZodType>(
  options: WorkflowToolOptions<Schema>,
): Tool<z.output<Schema>, unknown> {
  const call = remoteCall("ai.workflowTool()", options, WORKFLOW_TOOL_KEYS);
  const timeouts = checkTimeouts(call, options.timeouts, WORKFLOW_TIMEOUT_KEYS);
  const target: RemoteWorkflowTarget = {
    kind: "workflow",
    workflow: typeName(call, "workflow", options.workflow),
    taskQueue: options.taskQueue,
    ...defined({ execution: timeouts.execution, run: timeouts.run, retry: options.retry }),
  };
  return remoteTool(options, target);
}

/** The options checked that both kinds share; names the call in errors (`ai.activityTool() "lookup"`). */
function remoteCall<Schema extends z.ZodType>(fn: string, options: RemoteToolOptions<Schema>, keys: KnownKeys): string {
  if (!options || typeof options !== "object")
    throw new AgentOptionsError("options", `${fn} needs an options object { name, input, taskQueue, ... }`);
  const call = typeof options.name === "string" ? `${fn} "${options.name}"` : fn;
  checkKnownKeys(options, keys, call);
  if (typeof options.taskQueue !== "string" || options.taskQueue.trim() === "")
    throw new AgentOptionsError(
      "taskQueue",
      `${call} needs the task queue its workers poll (got ${JSON.stringify(options.taskQueue)})`,
    );
  if (options.retry !== undefined && (typeof options.retry !== "object" || options.retry === null))
    throw new AgentOptionsError("retry", `${call}: retry is Temporal's RetryPolicy, e.g. { maximumAttempts: 3 }`);
  return call;
}

function typeName(call: string, field: "activity" | "workflow", value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new AgentOptionsError(
      field,
      `${call} needs the ${field}'s type name, as its worker registered it (got ${JSON.stringify(value)})`,
    );
  return value;
}

function checkTimeouts<Keys extends KnownKeys>(
  call: string,
  timeouts: Partial<Record<keyof Keys, Duration>> | undefined,
  keys: Keys,
): Partial<Record<keyof Keys, Duration>> {
  if (timeouts === undefined) return {};
  if (typeof timeouts !== "object" || timeouts === null)
    throw new AgentOptionsError("timeouts", `${call}: timeouts is an object of durations`);
  checkKnownKeys(timeouts, keys, call, "timeouts");
  for (const [key, value] of Object.entries(timeouts))
    if (value !== undefined && durationMs(value, true) === undefined)
      throw new AgentOptionsError(`timeouts.${key}`, `${call}: ${durationProblem(value, true)}`);
  return timeouts;
}

/** The tool: an `ai.tool()` with the target its calls run on. Its `execute` is never called: the run's workflow makes the call. */
function remoteTool<Schema extends z.ZodType>(
  options: RemoteToolOptions<Schema>,
  target: RemoteToolTarget,
): Tool<z.output<Schema>, unknown> {
  const tool = defineTool({
    name: options.name,
    input: options.input,
    ...defined({
      description: options.description,
      needsApproval: options.needsApproval,
      approvalTimeout: options.approvalTimeout,
    }),
    execute: () => {
      throw new Error(
        `tool "${options.name}" runs as the ${target.kind} on task queue ${target.taskQueue}: the run calls it`,
      );
    },
  });
  return { ...tool, remote: target };
}
