/** Tool calls waiting for a person: the approve and reject updates, and the wait with its timeout. */
import { ApplicationFailure, condition, log, setHandler } from "@temporalio/workflow";
import type { RunState } from "../contract/run-state.js";
import { approveUpdate, rejectUpdate } from "./definitions.js";

type Decision = { approved: true } | { approved: false; reason: string };

/** The run's pending approvals. */
export class Approvals {
  readonly #pending = new Map<string, string>();
  readonly #decisions = new Map<string, Decision>();

  constructor(
    private readonly run: RunState,
    /** Called when a call starts or stops waiting, to refresh what observers see. */
    private readonly onChange: (waitingFor: string | undefined) => void,
  ) {
    const validate = (callId: string) => {
      if (!this.#pending.has(callId)) {
        const waiting = [...this.#pending.keys()].join(", ") || "none";
        throw ApplicationFailure.create({ type: "UnknownApprovalError", message: `No tool call "${callId}" is waiting for approval (waiting: ${waiting}).`, nonRetryable: true });
      }
    };
    setHandler(approveUpdate, (callId) => void this.#decisions.set(callId, { approved: true }), { validator: validate });
    setHandler(rejectUpdate, (callId, reason) => void this.#decisions.set(callId, { approved: false, reason: `rejected by a person: ${reason}` }), {
      validator: (callId: string, _reason: string) => validate(callId),
    });
  }

  /** Waits for a person to approve or reject the call, or for its timeout. */
  async wait(call: { id: string; name: string }, trip: number, input: unknown, timeoutMs: number | undefined): Promise<Decision> {
    this.#pending.set(call.id, call.name);
    this.run.trace.push({ trip, type: "approval", tool: call.name, callId: call.id, outcome: "requested", input });
    log.info("tool call waiting for approval", { tool: call.name, callId: call.id });
    this.onChange(`waiting for approval of ${call.name} (${call.id})`);
    const decided = () => this.#decisions.has(call.id);
    const inTime = timeoutMs === undefined ? (await condition(decided), true) : await condition(decided, timeoutMs);
    this.#pending.delete(call.id);
    const decision: Decision = inTime ? this.#decisions.get(call.id)! : { approved: false, reason: `no approval within ${timeoutMs} ms` };
    const outcome = decision.approved ? "approved" : inTime ? "rejected" : "timed-out";
    this.run.trace.push({ trip, type: "approval", tool: call.name, callId: call.id, outcome, ...(decision.approved ? {} : { reason: decision.reason }) });
    this.onChange(undefined);
    return decision;
  }
}
