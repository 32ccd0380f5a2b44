import { Context } from "@temporalio/activity";
import type { RunLoadInput } from "../core/activity-types.js";
import { MAX_PAGE_BYTES, type RunPage } from "../core/paging.js";
import { runPageQuery } from "../workflows/definitions.js";
import { runRefOf } from "../run-reads/index.js";

/**
 * The `run.load` activity: after continue-as-new, reads the previous run's state one page at a
 * time (each page recorded once, as this activity's result), so no payload holds the whole conversation.
 */
export async function runLoad(input: RunLoadInput): Promise<RunPage> {
  const context = Context.current();
  const handle = context.client.workflow.getHandle(runRefOf(context).workflowId, input.fromRunId);
  return (await handle.query(runPageQuery, input.part, input.from, MAX_PAGE_BYTES)) as RunPage;
}
