/** Approvals that wait for days: who may decide (worker side). The workflow side is `src/approvals/workflow/approval-waits.ts`. */
export type { ApprovalCandidate, ApprovalOptions } from "./approval-options.js";
export { createCanDecide } from "./can-decide-activity.js";
