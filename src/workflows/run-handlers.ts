/**
 * Every query, update and signal a run or a session answers, registered at once before the
 * workflow's first `await`, so that a client asking right after `start()` never finds a handler
 * missing. While the run sets up (the agent's lookup, its MCP listing, loading carried state)
 * they answer with what there is: the trace so far, no pending approvals, and an approve/reject
 * of a call that does not wait fails with `UnknownApprovalError`. Workflow-safe.
 */
import { setHandler } from "@temporalio/workflow";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import { MAX_PAGE_BYTES, PAGE_BYTES, pageOf } from "../core/paging.js";
import type { RunState } from "../core/run-state.js";
import { runApprovals, type Approvals } from "./approval-waits.js";
import { contextQuery, runPageQuery, traceQuery } from "./definitions.js";
import { countFailedAttempts } from "./failed-attempts.js";
import { McpToolList } from "./mcp-tool-list.js";
import type { RunEventPublisher } from "./run-event-publisher.js";
import type { RunProgress } from "./run-progress.js";

/** What the handlers need from the start of the run. */
export interface RunHandlerInputs {
  /** The run's state, which the queries read. */
  run: RunState;
  /** The run's stream (its own handlers are registered by its constructor). */
  events: RunEventPublisher;
  /** The run's agent path, root first. */
  agents: () => string[];
  /** The run's context (`run(input, { context })`). */
  context: unknown;
  /** The MCP tool list carried across continue-as-new, if any. */
  mcpTools: McpToolDefinition[] | undefined;
}

/** The run's handlers, with the state they answer from. */
export class RunHandlers {
  /** The approve/reject Updates, the pending-approvals query and the approval signals. */
  readonly approvals: Approvals;
  /** The `mcp-tools` query, and the listing at the run's start. */
  readonly mcpTools: McpToolList;
  /** Set once the agent is known; approvals and usage show in the run's current details from then on. */
  #progress: RunProgress | undefined;

  constructor({ run, events, agents, context, mcpTools }: RunHandlerInputs) {
    setHandler(traceQuery, () => run.trace);
    setHandler(contextQuery, () => context);
    setHandler(runPageQuery, (part, from, maxBytes) =>
      pageOf<unknown>(run[part], from, Math.min(maxBytes ?? PAGE_BYTES, MAX_PAGE_BYTES)),
    );
    this.mcpTools = new McpToolList(mcpTools);
    // Nothing waits and no model call fails before the run is set up, so nothing is lost before `showProgress`.
    this.approvals = runApprovals(run, events, { waiting: (what) => this.#progress?.waiting(what) }, agents);
    countFailedAttempts(run, () => this.#progress?.usageChanged());
  }

  /** Once the agent is known: from now on approvals and failed attempts' usage show in the run's current details. */
  showProgress(progress: RunProgress): void {
    this.#progress = progress;
  }
}
