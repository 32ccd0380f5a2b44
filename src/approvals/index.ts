/** Approvals that wait for days: who may decide (worker side). The workflow side is `src/workflows/approval-waits.ts`. */
export type { ApprovalCandidate, ApprovalOptions } from "./approval-options.js";
export { createCanDecide } from "./can-decide-activity.js";
