/**
 * An eval's approval policy (`approvals`): the eval decides each tool call that waits for approval
 * in a case's run, its sub-agents' runs included, as soon as it waits, so no run waits for a person
 * or for the approval timeout. Decisions go through the run handle, as a person's do, recorded
 * with `by: "eval"` (so the worker's `canDecide` sees who decides).
 */
import type { RunHandle } from "../client/run-handle.js";
import { ApprovalNotWaitingError } from "../errors.js";
import { EvalOptionsError } from "../errors.js";

/** What the eval does with a call that waits for approval. */
export type EvalApprovalDecision = "approve" | "reject";

/** A tool call waiting for approval, as an approval policy function sees it. */
export interface EvalApprovalCall {
  /** The tool's name. */
  toolName: string;
  /** The call's input, as the tool validated it. */
  input: unknown;
  /** The call's id. */
  callId: string;
}

/** `"approve"` or `"reject"` every call that waits for approval, or decide each with a function. */
export type EvalApprovalPolicy = EvalApprovalDecision | ((call: EvalApprovalCall) => EvalApprovalDecision);

/** Who the eval's decisions are recorded as (`by`). */
export const EVAL_APPROVER = "eval";

/** The reason a rejected call's refusal gives the model. */
const REJECT_REASON = "the eval's approval policy rejected it";

/** `approvals` is absent, "approve", "reject" or a function. */
export function validateApprovals(approvals: unknown): void {
  if (approvals === undefined || approvals === "approve" || approvals === "reject" || typeof approvals === "function")
    return;
  throw new EvalOptionsError(
    "approvals",
    `must be "approve", "reject" or a function (call) => "approve" | "reject" (got ${JSON.stringify(approvals)})`,
  );
}

/**
 * Decides every call of the run that waits for approval, until the run ends. Rejects when a
 * decision fails (the policy threw or returned something else, or `canDecide` refused "eval"):
 * the call would wait on, so the caller ends the run.
 */
export async function decideApprovals(handle: RunHandle, approvals: EvalApprovalPolicy): Promise<void> {
  for await (const call of waitingCalls(handle)) {
    const decision = typeof approvals === "function" ? approvals(call) : approvals;
    if (decision !== "approve" && decision !== "reject") {
      throw new EvalOptionsError(
        "approvals",
        `returned ${JSON.stringify(decision)} for ${call.toolName} (${call.callId}); return "approve" or "reject"`,
      );
    }
    try {
      if (decision === "approve") await handle.approve(call.callId, { by: EVAL_APPROVER });
      else await handle.reject(call.callId, { by: EVAL_APPROVER, reason: REJECT_REASON });
    } catch (error) {
      if (!ApprovalNotWaitingError.isInstance(error)) throw error; // else decided already, or the run closed: nothing waits
    }
  }
}

/** The run's calls as they start waiting for approval (its sub-agents' too); ends with the run, however it ends (its result says how). */
async function* waitingCalls(handle: RunHandle): AsyncGenerator<EvalApprovalCall> {
  try {
    for await (const event of handle.stream()) {
      if (event.type === "approval" && event.outcome === "requested")
        yield { toolName: event.tool, input: event.input, callId: event.callId };
    }
  } catch {
    // The run failed or was terminated: the stream rethrows its error, and the eval reads it from the run's result.
  }
}
