/**
 * A sub-agent tool's call (`agent.asTool()`): the run starts the sub-agent's `agentRun` as a child
 * workflow, waits for it, and turns its result into the call's record. Workflow-safe.
 */
import {
  ActivityFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
  log,
} from "@temporalio/workflow";
import { WorkflowExecutionAlreadyStartedError } from "@temporalio/common";
import { ACTIVITY, WORKFLOW_NAME } from "../core/constants.js";
import { recordChildUsage } from "../core/run-state.js";
import type { SubAgentRequest } from "../core/tool-outcome.js";
import { textOf, type RequestedToolCall, type ToolCallRecord } from "../core/types.js";
import { remainingBudget, type RunUsage } from "../core/usage.js";
import type { DurableAgentError } from "../errors.js";
import { errorData, fromFailure, usageOfFailure } from "../core/typed-failures.js";
import type { AgentRunArgs, AgentRunResult } from "./definitions.js";
import type { TripLoop } from "./trip-context.js";
import { defined } from "../core/defined.js";

/** The child workflow's id: the calling run's workflow id, the trip and the call id, so the same call always names the same child. */
export function childWorkflowId(call: RequestedToolCall, trip: number): string {
  return `${workflowInfo().workflowId}/trip-${trip}/${call.id}`;
}

/**
 * Runs the sub-agent as a child workflow. Its answer (its typed `output`, when it has an output
 * schema) is the call's result; a child that stops without one (max-trips, budget, invalid-output,
 * cancelled, timed-out) or fails is a `failed` call the calling
 * model sees, not a failure of the calling run; a failure's typed error is kept in the trace's
 * `subagent.finished` entry as `error`. Its usage counts in the calling run's.
 */
export async function runSubAgent(
  loop: TripLoop,
  call: RequestedToolCall,
  trip: number,
  request: SubAgentRequest,
): Promise<ToolCallRecord> {
  const { run } = loop;
  const workflowId = childWorkflowId(call, trip);
  const budget = remainingBudget(loop.budget, run.requestUsage);
  const args: AgentRunArgs = {
    agent: request.agent,
    messages: [{ role: "user", content: request.message }],
    ...(loop.streamText ? { streamText: true } : {}),
    subAgent: { agents: loop.agents(), ...defined({ budget }) },
    // The caller's context (a user id, a tenant) reaches the sub-agent's tools and instructions too.
    ...defined({ context: loop.ctx.context }),
  };
  const record = {
    id: call.id,
    name: call.name,
    input: request.input,
    trip,
    subAgent: request.agent,
    childWorkflowId: workflowId,
  };
  const finished = (
    stopReason: AgentRunResult["stopReason"] | "failed",
    detail: string,
    usage?: RunUsage,
    trace?: AgentRunResult["trace"],
    error?: DurableAgentError,
  ) => {
    run.trace.push({
      trip,
      type: "subagent.finished",
      tool: call.name,
      callId: call.id,
      agent: request.agent,
      workflowId,
      stopReason,
      detail,
      ...defined({ usage, trace }),
      ...(error ? { error: errorData(error) } : {}),
    });
    loop.events.syncTrace();
  };
  let result: AgentRunResult;
  try {
    result = await childResult(loop, workflowId, args, call, trip);
  } catch (error) {
    if (
      CancellationScope.current().consideredCancelled ||
      !(error instanceof ChildWorkflowFailure || error instanceof ActivityFailure)
    )
      throw error;
    const usage = usageOfFailure(error);
    recordChildUsage(run, usage, usage ? { [request.agent]: usage } : undefined);
    const message = error.cause?.message ?? error.message;
    finished("failed", message, usage, undefined, fromFailure(error));
    log.warn("sub-agent run failed", { agent: request.agent, workflowId, error: message });
    return { ...record, status: "failed", error: `The ${request.agent} agent failed: ${message}` };
  }
  recordChildUsage(
    run,
    result.usage,
    result.usageByAgent ?? (result.usage ? { [request.agent]: result.usage } : undefined),
  );
  const stopped = result.trace.findLast((e) => e.type === "run.stopped");
  const detail = stopped?.type === "run.stopped" ? stopped.detail : result.stopReason;
  finished(result.stopReason, detail, result.usage, result.trace);
  // Cancelling the calling run cancels the child, which ends with a result: the calling run ends as cancelled too.
  if (CancellationScope.current().consideredCancelled)
    throw new CancelledFailure(`cancelled while the ${request.agent} agent ran`);
  // The typed output when the sub-agent has an output schema, else its reply.
  if (result.stopReason === "answered")
    return { ...record, status: "ok", output: result.output !== undefined ? result.output : result.reply };
  return {
    ...record,
    status: "failed",
    error: `The ${request.agent} agent stopped without an answer: ${result.stopReason} (${detail})`,
  };
}

/** Starts the child and waits for its result; if a run with that id already exists (the call was made before), waits for that one instead. */
async function childResult(
  loop: TripLoop,
  workflowId: string,
  args: AgentRunArgs,
  call: RequestedToolCall,
  trip: number,
): Promise<AgentRunResult> {
  const agents = args.subAgent!.agents;
  const started = () => {
    loop.run.trace.push({
      trip,
      type: "subagent.started",
      tool: call.name,
      callId: call.id,
      agent: args.agent,
      workflowId,
    });
    loop.events.syncTrace();
  };
  try {
    const child = await startChild(WORKFLOW_NAME, {
      workflowId,
      args: [args],
      // Closing the calling run (terminated, timed out) asks the child to cancel; cancelling it cancels the child through the cancellation scope.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      // One run per call: a second start with this id fails, and the call re-attaches to the first (below).
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `${args.agent} (sub-agent of ${agents.join(" › ")}): ${firstLine(args)}`,
    });
    started();
    return (await child.result()) as AgentRunResult;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    log.info("sub-agent run exists already: re-attaching", { workflowId });
    started();
    return loop.tools[ACTIVITY.subAgentResult].executeWithOptions(
      { summary: `wait for ${args.agent} (${workflowId})` },
      [{ workflowId }],
    );
  }
}

function firstLine(args: AgentRunArgs): string {
  const first = args.messages[0];
  return textOf(first?.content ?? null)
    .split("\n")[0]!
    .slice(0, 100);
}
