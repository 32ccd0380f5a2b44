/**
 * Tool calls waiting for a person, in the run and in its sub-agents' runs: the approve and reject
 * Updates, the wait with its timeout, and the notices that carry waiting calls up the tree.
 *
 * A sub-agent's run tells its parent by signal when a call starts or stops waiting (the parent
 * tells its own), so the root knows every waiting call of the tree from its own history. An
 * approve/reject Update on the root for a call that waits lower down is forwarded by signal
 * straight to the run that waits: both hops are recorded, so a decision survives worker crashes.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setHandler,
  workflowInfo,
} from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import type { RunState } from "../core/run-state.js";
import type { PendingApproval } from "../core/types.js";
import type { RunEventPublisher } from "./run-event-publisher.js";
import type { RunProgress } from "./run-progress.js";
import { local } from "./activity-proxies.js";
import { ApprovalRefusedError, UnknownApprovalError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { approvalEnd, decisionOfSignal, notWaiting } from "./approval-decisions.js";
import {
  approvalDecisionSignal,
  approveUpdate,
  decideSignal,
  pendingApprovalsQuery,
  rejectUpdate,
  subAgentApprovalSignal,
  type ApprovalDecision,
  type ApprovalEnd,
  type ApproveDetails,
  type RejectDetails,
  type SubAgentApprovalNotice,
} from "./definitions.js";
import { defined } from "../core/defined.js";

/** Marks histories whose decisions ask the worker's canDecide first (a local activity) and carry who decided and when. */
const CAN_DECIDE_PATCH = "durable-agent.approval-can-decide";
/** Marks histories whose sub-agent runs tell their parent when a waiting call is cancelled (a signal the run awaits before it ends). */
const CANCELLED_NOTICE_PATCH = "durable-agent.approval-cancelled-notice";

/** A run's approvals, showing what waits in its stream (trace) and current details. */
export function runApprovals(
  run: RunState,
  events: RunEventPublisher,
  progress: Pick<RunProgress, "waiting">,
  agents: () => string[],
): Approvals {
  return new Approvals(
    run,
    (waitingFor) => {
      events.syncTrace();
      progress.waiting(waitingFor);
    },
    agents,
  );
}

/** The run's pending approvals, and those of its sub-agents. */
export class Approvals {
  readonly #own = new Map<string, PendingApproval>();
  /** Calls waiting in sub-agent runs, by `<workflowId>/<callId>`. */
  readonly #below = new Map<string, PendingApproval>();
  readonly #decisions = new Map<string, ApprovalDecision>();
  /** Calls that stopped waiting, by call id: how, so a late decision can say so. */
  readonly #ended = new Map<string, ApprovalEnd>();
  /** Decisions this run forwarded to a sub-agent's run, by `<workflowId>/<callId>`. */
  readonly #forwarded = new Map<string, ApprovalDecision>();
  #toParent: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: RunState,
    /** Called when a call of the tree starts or stops waiting, with what to show (undefined: nothing waits). */
    private readonly onChange: (waitingFor: string | undefined) => void,
    /** The run's agent path, root first. */
    private readonly agents: () => string[],
  ) {
    setHandler(approveUpdate, (callId, details) => this.decide(callId, { approved: true, ...details }), {
      validator: (callId: string, _details?: ApproveDetails) => void this.find(callId),
    });
    setHandler(
      rejectUpdate,
      (callId, reason, details) =>
        this.decide(callId, { approved: false, reason: `rejected by a person: ${reason}`, ...details }),
      {
        validator: (callId: string, _reason: string, _details?: RejectDetails) => void this.find(callId),
      },
    );
    // The Temporal UI's "Send a Signal": the same decision, gated the same way; a signal has no caller to fail, so a refusal is logged.
    setHandler(decideSignal, async (body) => {
      try {
        await this.decide(body?.callId, decisionOfSignal(body));
      } catch (error) {
        log.warn("a decision sent by the decide signal was not applied", {
          callId: body?.callId,
          error: (error as Error).message,
        });
      }
    });
    setHandler(approvalDecisionSignal, (callId, decision) => {
      if (this.#own.has(callId) && !this.#decisions.has(callId)) this.#decisions.set(callId, decision);
    });
    setHandler(subAgentApprovalSignal, (notice) => {
      const key = `${notice.approval.workflowId}/${notice.approval.callId}`;
      if (notice.waiting) this.#below.set(key, notice.approval);
      else {
        this.#below.delete(key);
        if (notice.ended) this.#ended.set(notice.approval.callId, notice.ended);
      }
      this.tellParent(notice);
      this.changed();
    });
    setHandler(pendingApprovalsQuery, () => [...this.#own.values(), ...this.#below.values()]);
  }

  /** Whether a call of the run, or of one of its sub-agents' runs, waits for a person. */
  get anyWaiting(): boolean {
    return this.#own.size + this.#below.size > 0;
  }

  /** Waits for a person to approve or reject the call, or for its timeout. */
  async wait(
    call: { id: string; name: string },
    trip: number,
    input: unknown,
    timeoutMs: number | undefined,
  ): Promise<ApprovalDecision> {
    const agents = this.agents();
    const approval: PendingApproval = {
      callId: call.id,
      tool: call.name,
      agent: agents.at(-1)!,
      agents,
      workflowId: workflowInfo().workflowId,
      input,
      trip,
    };
    this.#own.set(call.id, approval);
    this.run.trace.push({ trip, type: "approval", tool: call.name, callId: call.id, outcome: "requested", input });
    log.info("tool call waiting for approval", { tool: call.name, callId: call.id });
    this.tellParent({ waiting: true, approval });
    this.changed();
    const decided = () => this.#decisions.has(call.id);
    let inTime: boolean;
    try {
      inTime = timeoutMs === undefined ? (await condition(decided), true) : await condition(decided, timeoutMs);
    } catch (error) {
      if (isCancellation(error)) await this.cancelled(approval);
      throw error;
    }
    this.#own.delete(call.id);
    const decision: ApprovalDecision = inTime
      ? this.#decisions.get(call.id)!
      : { approved: false, reason: `no approval within ${timeoutMs} ms` };
    const outcome = decision.approved ? "approved" : inTime ? "rejected" : "timed-out";
    const ended = approvalEnd(outcome, decision, timeoutMs);
    this.#ended.set(call.id, ended);
    this.run.trace.push({
      trip,
      type: "approval",
      tool: call.name,
      callId: call.id,
      outcome,
      ...(decision.approved
        ? decision.note !== undefined
          ? { note: decision.note }
          : {}
        : { reason: decision.reason }),
      ...defined({ by: decision.by, decidedAt: decision.decidedAt }),
    });
    this.tellParent({ waiting: false, approval, ended });
    this.changed();
    return decision;
  }

  /**
   * The run was cancelled (or reached its time limit) while the call waited: the call ends as
   * "cancelled", the run's current details stop showing it, and a sub-agent's run tells its parent,
   * so no caller's `pendingApprovals()` keeps listing it. The notice is sent outside the cancelled
   * scope and awaited: the run ends right after, and a closed run's signals are not delivered.
   */
  private async cancelled(approval: PendingApproval): Promise<void> {
    const ended: ApprovalEnd = {
      state: "cancelled",
      detail: "was cancelled while it waited (the run was cancelled or timed out)",
    };
    this.#own.delete(approval.callId);
    this.#ended.set(approval.callId, ended);
    this.changed();
    // Histories from before this notice sent nothing here.
    if (workflowInfo().parent && patched(CANCELLED_NOTICE_PATCH))
      await CancellationScope.nonCancellable(() => this.tellParent({ waiting: false, approval, ended }));
  }

  /** The waiting call of that id: the run's own, else a sub-agent's; rejects the Update when there is none or more than one. */
  private find(callId: string): PendingApproval {
    const own = this.#own.get(callId);
    const decided = this.#decisions.get(callId);
    if (own && decided) throw notWaiting(callId, approvalEnd(decided.approved ? "approved" : "rejected", decided));
    if (own) return own;
    const below = [...this.#below.values()].filter((a) => a.callId === callId);
    const forwarded = below.length === 1 ? this.#forwarded.get(`${below[0]!.workflowId}/${callId}`) : undefined;
    if (forwarded) throw notWaiting(callId, approvalEnd(forwarded.approved ? "approved" : "rejected", forwarded));
    if (below.length === 1) return below[0]!;
    const ended = this.#ended.get(callId);
    if (ended && below.length === 0) throw notWaiting(callId, ended);
    const waiting = [...this.#own.keys(), ...[...this.#below.values()].map((a) => `${a.callId} (${a.agent})`)];
    const ambiguous =
      `${below.length} runs of the tree wait on a call "${callId}" ` +
      `(${below.map((a) => a.workflowId).join(", ")}) (waiting: ${waiting.join(", ")}).`;
    throw toFailure(
      below.length > 1
        ? new UnknownApprovalError(callId, waiting, ambiguous)
        : new UnknownApprovalError(callId, waiting),
    );
  }

  /**
   * Applies a person's decision. The worker's `canDecide` is asked first (a local activity, so the
   * answer is recorded and replay never runs user code); a refusal fails the Update with
   * ApprovalRefusedError and the call keeps waiting. Histories from before approvers skip it.
   */
  private async decide(callId: string, decision: ApprovalDecision): Promise<void> {
    let approval = this.find(callId);
    let stamped = decision;
    if (patched(CAN_DECIDE_PATCH)) {
      const answer = await local[ACTIVITY.approvalCanDecide]({
        by: decision.by,
        tool: approval.tool,
        input: approval.input,
        agent: approval.agent,
        approve: decision.approved,
      });
      if (!answer.allowed) {
        const who = decision.by === undefined ? "a decision without `by`" : `"${decision.by}"`;
        throw toFailure(
          new ApprovalRefusedError(
            callId,
            decision.by,
            answer.why,
            `canDecide refused ${who} for ${approval.tool} (${callId}): ${answer.why}. The call still waits for approval.`,
          ),
        );
      }
      approval = this.find(callId); // it may have stopped waiting while canDecide ran
      stamped = { ...decision, decidedAt: new Date().toISOString() };
    }
    if (this.#own.has(callId)) {
      this.#decisions.set(callId, stamped);
      return;
    }
    this.#forwarded.set(`${approval.workflowId}/${callId}`, stamped);
    log.info("approval decision forwarded to a sub-agent run", {
      callId,
      agent: approval.agent,
      workflowId: approval.workflowId,
      approved: decision.approved,
    });
    await getExternalWorkflowHandle(approval.workflowId).signal(approvalDecisionSignal, callId, stamped);
  }

  /** Passes a notice to the parent run, in order, when this run is a sub-agent's; resolves once it was delivered (or could not be). */
  private tellParent(notice: SubAgentApprovalNotice): Promise<void> {
    const parent = workflowInfo().parent;
    if (!parent) return this.#toParent;
    this.#toParent = this.#toParent
      .then(() => getExternalWorkflowHandle(parent.workflowId).signal(subAgentApprovalSignal, notice))
      .catch((error) =>
        log.warn("could not tell the parent run about an approval", {
          callId: notice.approval.callId,
          error: (error as Error).message,
        }),
      );
    return this.#toParent;
  }

  private changed(): void {
    const lines = [
      ...[...this.#own.values()].map((a) => `waiting for approval of ${a.tool} (${a.callId})`),
      ...[...this.#below.values()].map(
        (a) => `sub-agent ${a.agents.join(" › ")} waits for approval of ${a.tool} (${a.callId})`,
      ),
    ];
    this.onChange(lines.length ? lines.join("\n\n⏸ ") : undefined);
  }
}
