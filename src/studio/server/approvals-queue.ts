/**
 * `GET /api/approvals`: the approvals queue across runs. Visibility cannot tell which runs wait
 * for a person, so it reads the running runs (the newest `AWAITING_SCAN_MAX` of them) and asks
 * each run's worker for its waiting calls (the `pending-approvals` query), a few at a time.
 */
import type { Client } from "@temporalio/client";
import pLimit from "p-limit";
import { defined } from "../../core/defined.js";
import { SEARCH_ATTRIBUTES } from "../../core/search-attributes.js";
import type { ApprovalsResponse, QueuedApproval } from "../api-types.js";
import type { RunInputs } from "./run-inputs.js";
import { AWAITING_SCAN_MAX, pendingApprovals, runsVisibilityQuery } from "./runs-list.js";

/** Runs asked at once. */
const CONCURRENT_QUERIES = 8;

/** Every call waiting for approval in the running runs (not evals'), the oldest run's first. */
export async function listApprovals(client: Client, inputs: RunInputs): Promise<ApprovalsResponse> {
  // SQL visibility stores take no ORDER BY: runs come newest first, and are sorted here.
  const query = runsVisibilityQuery({ awaiting: "approval" });
  const runs = [];
  let truncated = false;
  for await (const info of client.workflow.list({ query, pageSize: 100 })) {
    if (runs.length === AWAITING_SCAN_MAX) {
      truncated = true;
      break;
    }
    runs.push(info);
  }
  const limit = pLimit(CONCURRENT_QUERIES);
  const queued = await Promise.all(
    runs.map((info) =>
      limit(async (): Promise<QueuedApproval[]> => {
        const pending = await pendingApprovals(client, info.workflowId, info.runId);
        if (pending.length === 0) return [];
        const input = await inputs.of(info.workflowId, info.runId);
        const agent = info.typedSearchAttributes.get(SEARCH_ATTRIBUTES.agent) ?? input.agent ?? info.type;
        return pending.map((call) => ({
          workflowId: info.workflowId,
          runId: info.runId,
          agent,
          ...defined({ firstWords: input.firstWords }),
          startTime: info.startTime.toISOString(),
          callId: call.callId,
          tool: call.tool,
          agents: call.agents,
          input: call.input,
          trip: call.trip,
        }));
      }),
    ),
  );
  const approvals = queued.flat().sort((a, b) => a.startTime.localeCompare(b.startTime));
  return { approvals, truncated };
}
