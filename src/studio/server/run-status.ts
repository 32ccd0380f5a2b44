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

/** The studio's status of a `WorkflowExecutionStatusName` (RUNNING, CANCELLED, ...). */
export function runStatusOf(name: string): RunStatus {
  const found = (Object.keys(STATUSES) as RunStatus[]).find((status) => STATUSES[status].name === name);
  return found ?? "failed";
}

/** The `ExecutionStatus` value of a visibility query for the status, or undefined for an unknown one. */
export function visibilityStatus(status: string): string | undefined {
  return STATUSES[status as RunStatus]?.visibility;
}

/** The statuses the API takes. */
export const RUN_STATUSES = Object.keys(STATUSES) as RunStatus[];
