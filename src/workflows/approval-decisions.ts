/** Decisions on waiting calls as data: how a call ended, the error for a late decision, a signalled decision's checks. Workflow-safe. */
import type { ApplicationFailure } from "@temporalio/workflow";
import type { ApprovalDecision, ApprovalEnd, SignalledDecision } from "./definitions.js";
import { ApprovalNotWaitingError, InvalidDecisionError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";

/** How a call ended, as a late decision's error says it. */
export function approvalEnd(
  outcome: "approved" | "rejected" | "timed-out",
  decision: ApprovalDecision,
  timeoutMs?: number,
): ApprovalEnd {
  if (outcome === "timed-out")
    return { state: "timed-out", detail: `timed out after ${timeoutMs} ms without a decision` };
  const by = decision.by !== undefined ? ` by ${decision.by}` : "";
  const at = decision.decidedAt !== undefined ? ` at ${decision.decidedAt}` : "";
  return { state: outcome, detail: `was already ${outcome}${by}${at}` };
}

/** The failure of a decision for a call that no longer waits: it says which way the call ended, and nothing changes. */
export function notWaiting(callId: string, ended: ApprovalEnd): ApplicationFailure {
  return toFailure(
    new ApprovalNotWaitingError(
      callId,
      ended.state,
      `Tool call "${callId}" is no longer waiting for approval: it ${ended.detail}. Nothing was changed.`,
    ),
  );
}

/** The decision a `decide` signal's JSON body stands for; throws (logged by the handler) when the body is not one. */
export function decisionOfSignal(body: SignalledDecision | undefined): ApprovalDecision {
  const fail = (problem: string) => toFailure(new InvalidDecisionError(problem));
  if (typeof body !== "object" || body === null) throw fail("is not a JSON object");
  if (typeof body.callId !== "string" || body.callId === "") throw fail("has no callId");
  const by = typeof body.by === "string" && body.by !== "" ? { by: body.by } : {};
  if (body.decision === "approve")
    return { approved: true, ...by, ...(typeof body.note === "string" ? { note: body.note } : {}) };
  if (body.decision === "reject")
    return {
      approved: false,
      reason: `rejected by a person: ${typeof body.reason === "string" && body.reason ? body.reason : "no reason given"}`,
      ...by,
    };
  throw fail(`has decision ${JSON.stringify(body.decision)}, not "approve" or "reject"`);
}
