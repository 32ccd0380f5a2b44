/** Helpers for tests of tool calls that wait for approval. */
import type { RunHandle, StreamedRunEvent } from "../../src/index.js";

/** A run event that requests, or reports, an approval. */
export type ApprovalEvent = Extract<StreamedRunEvent, { type: "approval" }>;

/** Resolves with the first approval request the run's stream shows. */
export async function approvalRequested(handle: RunHandle): Promise<ApprovalEvent> {
  for await (const event of handle.stream())
    if (event.type === "approval" && event.outcome === "requested") return event;
  throw new Error("the run ended without asking for approval");
}
