/** Options of approvals on a worker (`ai.worker({ approvals })`). Worker-side. */
import type { ApprovalCandidate } from "../core/activity-types.js";

export type { ApprovalCandidate } from "../core/activity-types.js";

/** How a worker gates decisions on calls that wait for approval. */
export interface ApprovalOptions {
  /**
   * Whether `by` may decide on this call. Runs on the worker (a local activity), never in the
   * workflow; a refusal (false, or a throw) fails the caller's `approve`/`reject` with
   * `ApprovalRefusedError` and leaves the call waiting. Default: everyone may decide.
   */
  canDecide?: (candidate: ApprovalCandidate) => boolean | Promise<boolean>;
}
