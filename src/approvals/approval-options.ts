/** Options of approvals on a worker (`ai.worker({ approvals })`). Worker-side. */

/** What `canDecide` is asked about: who wants to decide on which waiting call. */
export interface ApprovalCandidate {
  /** Who asked to decide (`approve(callId, { by })`); undefined when they did not say. */
  by: string | undefined;
  /** The tool whose call waits. */
  tool: string;
  /** The call's input, as the model sent it (validated). */
  input: unknown;
  /** The agent whose call waits (a sub-agent's name for a call that waits in a sub-agent run). */
  agent: string;
  /** Whether they approve (true) or reject (false). */
  approve: boolean;
}

/** How a worker gates decisions on calls that wait for approval. */
export interface ApprovalOptions {
  /**
   * Whether `by` may decide on this call. Runs on the worker (a local activity), never in the
   * workflow; a refusal (false, or a throw) fails the caller's `approve`/`reject` with
   * `ApprovalRefusedError` and leaves the call waiting. Default: everyone may decide.
   */
  canDecide?: (candidate: ApprovalCandidate) => boolean | Promise<boolean>;
}
