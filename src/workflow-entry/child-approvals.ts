/**
 * The approvals of the agent runs a workflow started: each run tells its parent by the
 * `subagent.approval` signal when one of its calls (or a call of its own sub-agents) starts or
 * stops waiting, and the parent decides with the `decide` signal the run accepts (a workflow cannot
 * send Updates). Workflow-safe.
 */
import { condition, getExternalWorkflowHandle, setHandler } from "@temporalio/workflow";
import type { PendingApproval } from "../core/types.js";
import { decideSignal, subAgentApprovalSignal, type SubAgentApprovalNotice } from "../workflows/definitions.js";

/** Calls waiting in the agent runs this workflow started (and their sub-agents), by `<workflowId>/<callId>`. */
let waiting: Map<string, PendingApproval> | undefined;

/**
 * Takes the runs' notices from here on. Each workflow has its own module state in Temporal's
 * sandbox, so this is per workflow; a run's notices that come before are buffered by Temporal.
 */
export function listenForApprovals(): Map<string, PendingApproval> {
  if (waiting) return waiting;
  const calls = new Map<string, PendingApproval>();
  setHandler(subAgentApprovalSignal, ({ waiting: isWaiting, approval }: SubAgentApprovalNotice) => {
    const key = `${approval.workflowId}/${approval.callId}`;
    if (isWaiting) calls.set(key, approval);
    else calls.delete(key);
  });
  waiting = calls;
  return calls;
}

/** The approvals of one agent run: those of its own calls and of its sub-agents' runs (whose ids start with its own). */
export class ChildApprovals {
  readonly #calls = listenForApprovals();

  constructor(private readonly workflowId: string) {}

  /** Calls of the run (and of its sub-agents) waiting for a decision now. */
  pending(): PendingApproval[] {
    return [...this.#calls.values()].filter(
      (a) => a.workflowId === this.workflowId || a.workflowId.startsWith(`${this.workflowId}/`),
    );
  }

  /** Waits until a call of the run waits for a decision, and gives it (the first, if several). */
  async next(): Promise<PendingApproval> {
    await condition(() => this.pending().length > 0);
    return this.pending()[0]!;
  }

  /** Sends a decision to the run, which forwards it to the sub-agent run that waits, if any. */
  decide(callId: string, decision: "approve" | "reject", details: { by?: string; note?: string; reason?: string }) {
    return getExternalWorkflowHandle(this.workflowId).signal(decideSignal, { callId, decision, ...details });
  }
}
