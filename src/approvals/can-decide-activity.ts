/** The `approval.can-decide` local activity: asks the worker's `canDecide` whether a person may decide on a waiting call. */
import type { ApprovalCandidate, CanDecideAnswer } from "../core/activity-types.js";
import type { ApprovalOptions } from "./approval-options.js";

/** The activity for a worker's approval options (everyone may decide when there is no `canDecide`). */
export function createCanDecide(options: ApprovalOptions | undefined) {
  return async function canDecide(candidate: ApprovalCandidate): Promise<CanDecideAnswer> {
    if (!options?.canDecide) return { allowed: true };
    try {
      return (await options.canDecide(candidate)) === true
        ? { allowed: true }
        : { allowed: false, why: "canDecide returned false" };
    } catch (error) {
      return { allowed: false, why: `canDecide threw: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
}
