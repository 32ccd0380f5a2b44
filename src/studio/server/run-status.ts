/** Temporal's execution status names as the studio's lowercase `RunStatus`, and back for visibility queries. */
import type { RunStatus } from "../api-types.js";

const STATUSES: Record<RunStatus, { name: string; visibility: string }> = {
  running: { name: "RUNNING", visibility: "Running" },
  completed: { name: "COMPLETED", visibility: "Completed" },
  failed: { name: "FAILED", visibility: "Failed" },
  cancelled: { name: "CANCELLED", visibility: "Canceled" },
  terminated: { name: "TERMINATED", visibility: "Terminated" },
  continued: { name: "CONTINUED_AS_NEW", visibility: "ContinuedAsNew" },
  "timed-out": { name: "TIMED_OUT", visibility: "TimedOut" },
};

/** The stop reasons of a run that completed (its workflow returned a result) but did not finish its work: shown by that status. */
const STOPPED_AS: Partial<Record<string, RunStatus>> = { cancelled: "cancelled", "timed-out": "timed-out" };

/**
 * The studio's status of a `WorkflowExecutionStatusName` (RUNNING, CANCELLED, ...) and the run's
 * stop reason: a cancelled run's workflow completes (with stopReason "cancelled"), yet it is cancelled.
 */
export function runStatusOf(name: string, stopReason?: string): RunStatus {
  if (name === STATUSES.completed.name && stopReason !== undefined && STOPPED_AS[stopReason])
    return STOPPED_AS[stopReason];
  const found = (Object.keys(STATUSES) as RunStatus[]).find((status) => STATUSES[status].name === name);
  return found ?? "failed";
}

/**
 * The visibility query for runs of a status. A cancelled (or timed-out) run completes with that
 * stop reason, so "cancelled" also asks for those, and "completed" leaves them out.
 */
export function statusCondition(status: RunStatus, stopReasonAttribute: string): string {
  const stopped = Object.keys(STOPPED_AS).filter((reason) => STOPPED_AS[reason] === status);
  const own = `ExecutionStatus = '${STATUSES[status].visibility}'`;
  if (status === "completed")
    return `(${own} AND (${stopReasonAttribute} IS NULL OR ${stopReasonAttribute} NOT IN (${Object.keys(STOPPED_AS)
      .map((r) => `'${r}'`)
      .join(", ")})))`;
  if (stopped.length === 0) return own;
  return `(${own} OR (ExecutionStatus = '${STATUSES.completed.visibility}' AND ${stopReasonAttribute} IN (${stopped.map((r) => `'${r}'`).join(", ")})))`;
}

/** True for a status the API takes. */
export const isRunStatus = (status: string): status is RunStatus => Object.hasOwn(STATUSES, status);

/** The statuses the API takes. */
export const RUN_STATUSES = Object.keys(STATUSES) as RunStatus[];
