import type {
  Client,
  WorkflowExecutionStatusName,
  WorkflowHandle,
  WorkflowUpdateFailedError,
} from "@temporalio/client";
import { ApplicationFailure } from "@temporalio/common/lib/failure.js";
import type { PendingApproval, RunResult, TraceEvent } from "../core/types.js";
import { ApprovalError, ApprovalNotWaitingError, UnknownApprovalError } from "../errors.js";
import { fromFailure } from "../core/typed-failures.js";
import { toRunError } from "../run-reads/index.js";
import {
  approveUpdate,
  pendingApprovalsQuery,
  rejectUpdate,
  traceQuery,
  type AgentRunResult,
} from "../workflows/definitions.js";
import { nestedTrace } from "../subagents/nested-trace.js";
import { completeResult } from "../run-reads/index.js";
import { getDefaultClient } from "./connection.js";
import { RunEventStream, type StreamOptions } from "../streaming/client/index.js";
import { defined } from "../core/defined.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { uiMessageStream, uiMessageStreamResponse, type UIMessageStreamOptions } from "../streaming/client/index.js";

/** A started run: await its result, or read its trace while it is live. */
export class RunHandle {
  constructor(
    /** The Temporal handle, for anything this class does not wrap (cancel, describe, fetchHistory). */
    readonly workflow: WorkflowHandle,
    /** The Temporal client the run is watched through. */
    readonly client: Client,
  ) {}

  /** The run's workflow id. */
  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /** Waits for the run to end. A failed run rejects with the typed error that ended it. */
  async result(): Promise<RunResult> {
    try {
      return await completeResult(this.client, (await this.workflow.result()) as AgentRunResult);
    } catch (error) {
      throw await toRunError(this.workflowId, error);
    }
  }

  /** The run's events as they happen, from the start or from `fromOffset`. */
  stream(options?: StreamOptions): RunEventStream {
    return new RunEventStream(this.client, this.workflowId, () => this.result(), options);
  }

  /**
   * The run's answer as the AI SDK's UI message stream (what `useChat` reads), as a
   * server-sent-events `Response`: text, reasoning, tool parts, approvals, this library's events as
   * `data-*` parts, sub-agents nested, then `finish`. Resume a dropped connection with its
   * `Last-Event-ID` as `after`.
   */
  toUIMessageStreamResponse(options: UIMessageStreamOptions = {}, init?: ResponseInit): Response {
    return uiMessageStreamResponse(uiMessageStream(this.client, this.workflowId, options), init);
  }

  /** Cancels the run: in-flight model and tool calls are cancelled, and the run ends with stopReason "cancelled". */
  cancel(): Promise<void> {
    return this.workflow.cancel().then(() => undefined);
  }

  /**
   * Approves a tool call that waits for approval (a Workflow Update): the run's own, or a
   * sub-agent's, which the run forwards to the sub-agent's run. `by` and `note` are recorded with
   * the decision and its time (trace, stream, eval record). Rejects with `ApprovalRefusedError`
   * when the worker's `canDecide` refuses `by` (the call keeps waiting), `ApprovalNotWaitingError`
   * when the call no longer waits (timed out, cancelled, already decided, or the run has closed:
   * its message says how the run closed), `UnknownApprovalError` when no such call waits.
   */
  async approve(callId: string, options: ApproveOptions = {}): Promise<void> {
    const details = { ...defined({ by: options.by, note: options.note }) };
    await this.decide(callId, () =>
      this.workflow.executeUpdate(approveUpdate, { args: Object.keys(details).length ? [callId, details] : [callId] }),
    );
  }

  /** Rejects a tool call that waits for approval; the reason reaches the model as a refusal. Fails as `approve` does. */
  async reject(callId: string, options: RejectOptions | string): Promise<void> {
    const { reason, by } = typeof options === "string" ? { reason: options, by: undefined } : options;
    await this.decide(callId, () =>
      this.workflow.executeUpdate(rejectUpdate, {
        args: by !== undefined ? [callId, reason, { by }] : [callId, reason],
      }),
    );
  }

  private async decide(callId: string, update: () => Promise<void>): Promise<void> {
    try {
      await update();
    } catch (error) {
      const { WorkflowUpdateFailedError } = await loadTemporalClient();
      if (error instanceof WorkflowUpdateFailedError) throw approvalErrorOf(callId, error);
      throw (await this.closedRunError(callId, error)) ?? error;
    }
  }

  /**
   * A decision sent to a run that has closed: the typed error saying how the run closed (and how
   * the call had ended, from the result); undefined when the run is not closed.
   */
  private async closedRunError(callId: string, error: unknown): Promise<ApprovalError | undefined> {
    const { WorkflowNotFoundError } = await loadTemporalClient();
    if (!(error instanceof WorkflowNotFoundError)) return undefined;
    const status = await this.workflow.describe().then(
      (description) => description.status.name,
      () => undefined, // no such workflow at all: the original error says so
    );
    if (status === undefined || !CLOSED_RUN[status]) return undefined;
    const result =
      status === "COMPLETED"
        ? await this.workflow.result().then(
            (r) => r as AgentRunResult,
            () => undefined,
          )
        : undefined;
    return decisionOnClosedRun(callId, this.workflowId, status, result);
  }

  /**
   * The trace so far (a workflow query). With `nested`, the traces of sub-agent runs still going
   * are read too and nested under the calls that started them (finished ones always are).
   */
  trace(options: { nested?: boolean } = {}): Promise<TraceEvent[]> {
    return options.nested ? nestedTrace(this.client, this.workflowId) : this.workflow.query(traceQuery);
  }

  /** Tool calls waiting for approval in this run and in its sub-agents' runs, at any depth; `approve`/`reject` on this handle reach each of them. */
  pendingApprovals(): Promise<PendingApproval[]> {
    return this.workflow.query(pendingApprovalsQuery);
  }
}

/** Options of `handle.approve()`. */
export interface ApproveOptions {
  /** Who approves: recorded with the decision, and what the worker's `canDecide` is asked about. */
  by?: string;
  /** A note recorded with the approval. */
  note?: string;
}

/** Options of `handle.reject()`. */
export interface RejectOptions {
  /** Who rejects. */
  by?: string;
  /** Why: it reaches the model as the call's refusal. */
  reason: string;
}

/** The typed error a failed decision's Update carries; a failure of no known type is an `ApprovalError` with its message. */
function approvalErrorOf(callId: string, error: WorkflowUpdateFailedError): Error {
  const typed = fromFailure(error);
  // Failures recorded before UnknownApprovalError had fields carry no callId.
  if (ApprovalError.isInstance(typed) && typed.callId === undefined) Object.assign(typed, { callId });
  if (typed) return typed;
  return error.cause instanceof ApplicationFailure ? new ApprovalError(callId, error.cause.message) : error;
}

/** How a run closed, by its Temporal status, as a late decision's error says it. */
const CLOSED_RUN: Partial<Record<WorkflowExecutionStatusName, string>> = {
  COMPLETED: "has completed",
  FAILED: "failed",
  CANCELLED: "was cancelled",
  TERMINATED: "was terminated",
  TIMED_OUT: "timed out (its workflow execution timeout)",
  CONTINUED_AS_NEW: "continued as new",
};

type ApprovalEntry = Extract<TraceEvent, { type: "approval" }>;

/**
 * The error for a decision sent to a run that has closed. A completed run's trace says how the call
 * ended: decided (its state, by whom and when), or still waiting when the run stopped (cancelled, its
 * time limit): "cancelled". A run that closed otherwise (failed, terminated, timed out) took its
 * waiting calls with it: "cancelled" too. Nothing was changed in any case.
 */
export function decisionOnClosedRun(
  callId: string,
  workflowId: string,
  status: WorkflowExecutionStatusName,
  result: AgentRunResult | undefined,
): ApprovalError {
  const again = "start a new run, or ai.fork() this one, to ask again";
  if (status === "CONTINUED_AS_NEW")
    return new ApprovalError(
      callId,
      `Run ${workflowId} continued as new: send the decision to its latest run (ai.getRun("${workflowId}"), a handle without a run id). Nothing was changed.`,
    );
  if (status !== "COMPLETED" || !result || !Array.isArray(result.trace)) {
    return new ApprovalNotWaitingError(
      callId,
      "cancelled",
      `Tool call "${callId}" is no longer waiting for approval: run ${workflowId} ` +
        `${CLOSED_RUN[status] ?? status.toLowerCase()}, and no call of a closed run waits. Nothing was ` +
        `changed; ${again}.`,
    );
  }
  const entries = approvalEntries(result.trace, callId);
  const stopped = `stopReason "${result.stopReason}"`;
  const decided = entries.findLast((e) => e.outcome !== "requested");
  if (decided) {
    const state = decided.outcome as Exclude<ApprovalEntry["outcome"], "requested">;
    const how =
      state === "timed-out"
        ? `timed out without a decision (${decided.reason ?? "no approval in time"})`
        : `was already ${state}${decided.by !== undefined ? ` by ${decided.by}` : ""}${decided.decidedAt !== undefined ? ` at ${decided.decidedAt}` : ""}`;
    return new ApprovalNotWaitingError(
      callId,
      state,
      `Tool call "${callId}" is no longer waiting for approval: it ${how}, and run ${workflowId} has since completed (${stopped}). Nothing was changed.`,
    );
  }
  if (entries.length > 0) {
    const detail = result.trace.findLast((e) => e.type === "run.stopped");
    const why = detail?.type === "run.stopped" ? `${stopped}: ${detail.detail}` : stopped;
    return new ApprovalNotWaitingError(
      callId,
      "cancelled",
      `Tool call "${callId}" is no longer waiting for approval: run ${workflowId} stopped while it waited ` +
        `(${why}), so nobody decided it and it never ran. Nothing was changed; ${again}.`,
    );
  }
  return new UnknownApprovalError(
    callId,
    [],
    `No tool call "${callId}" waited for approval in run ${workflowId}, which has completed (${stopped}). Nothing was changed.`,
  );
}

/** The approval entries of a call, in the trace and the nested traces of its sub-agents' runs. */
function approvalEntries(trace: readonly TraceEvent[], callId: string): ApprovalEntry[] {
  return trace.flatMap((e): ApprovalEntry[] => {
    if (e.type === "approval") return e.callId === callId ? [e] : [];
    if ((e.type === "subagent.finished" || e.type === "subagent.started") && e.trace)
      return approvalEntries(e.trace, callId);
    return [];
  });
}

/** Re-attaches to a run from any process by its workflow id. */
export async function getRun(workflowId: string, options: { client?: Client } = {}): Promise<RunHandle> {
  const client = options.client ?? (await getDefaultClient());
  return new RunHandle(client.workflow.getHandle(workflowId), client);
}
