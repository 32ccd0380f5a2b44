/**
 * `runAgent` and `startAgent`: an agent's run as a child workflow of the caller's workflow. The
 * child is the library's `agentRun`, started by its type name on the agents' task queue, so the
 * caller's bundle holds none of the agent's code. Workflow-safe.
 */
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ParentClosePolicy,
  startChild,
  uuid4,
  type ChildWorkflowCancellationType,
  type ChildWorkflowHandle,
} from "@temporalio/workflow";
import { DEFAULT_TASK_QUEUE, WORKFLOW_NAME } from "../core/constants.js";
import { defined } from "../core/defined.js";
import type { ModelSettings } from "../core/model-settings.js";
import type { AgentRunResult } from "../core/paging.js";
import type { Message, PendingApproval, StopReason, ToolCallRecord } from "../core/types.js";
import type { RunUsage } from "../core/usage.js";
import type { AgentRunArgs } from "../workflows/definitions.js";
import { agentName, type AgentLike, type ContextOfAgent, type OutputOfAgent } from "./agent-ref.js";
import { ChildApprovals } from "./child-approvals.js";

/** What an agent is asked: a user message, or the conversation so far ending in the user's turn. */
export type AgentInput = string | Message[];

/** Options of `runAgent` and `startAgent`. */
export interface RunAgentOptions<Context = unknown> {
  /** The run's context (a user id, a tenant), for its tools and instructions. Not checked against the agent's `contextSchema` here. */
  context?: Context;
  /** The task queue the agents' worker polls. Default `"durable-agent"` (the default of `ai.worker()`). */
  taskQueue?: string;
  /** The child's workflow id. Default `<agent>-<uuid>` (deterministic: the workflow's own uuid4). */
  workflowId?: string;
  /** This run's bound on model calls, over the agent's `maxTrips`. */
  maxTrips?: number;
  /** This run's model settings (`temperature`, `toolChoice`, ...), over the agent's model's. */
  modelSettings?: ModelSettings;
  /** What happens to the agent's run when your workflow closes first. Default `REQUEST_CANCEL`. */
  parentClosePolicy?: ParentClosePolicy;
  /** How cancelling your workflow (or the scope) cancels the agent's run. Default `WAIT_CANCELLATION_COMPLETED`: the run ends as cancelled first. */
  cancellationType?: ChildWorkflowCancellationType;
}

/** What an agent's run came to, as a workflow sees it. */
export interface AgentResult<Output = unknown> {
  /** The text of the model's last answer ("" when the run stopped without one). */
  reply: string;
  /** With an output schema on the agent: the final answer parsed and validated; undefined when the run stopped without one. */
  output: Output | undefined;
  /** Why the run ended: `"answered"`, `"max-trips"`, `"budget"`, `"invalid-output"`, `"timed-out"`. */
  stopReason: StopReason;
  /** Every tool call of the run (empty when the result was too large and left them to pages). */
  toolCalls: ToolCallRecord[];
  /** Tokens (and cost, with pricing) the run used; undefined when the model reported none. */
  usage: RunUsage | undefined;
  /** The agent run's workflow id. */
  workflowId: string;
}

/** An agent's run started by `startAgent`: its result, and its tool calls waiting for approval. */
export interface AgentRunHandle<Output = unknown> {
  /** The agent run's workflow id. */
  readonly workflowId: string;
  /** Waits for the run's result. Cancelling your workflow cancels the run; then this throws `CancelledFailure`. */
  result(): Promise<AgentResult<Output>>;
  /** Calls of the run (and of its sub-agents) that wait for a decision now, as the run reported them. */
  pendingApprovals(): PendingApproval[];
  /** Waits until a call of the run waits for a decision, and gives it. */
  nextApproval(): Promise<PendingApproval>;
  /**
   * Approves a waiting call (the run's `decide` signal; the agent's worker asks its `canDecide`
   * first). Resolves once the run has the signal; a refused decision leaves the call waiting.
   */
  approve(callId: string, details?: { by?: string; note?: string }): Promise<void>;
  /** Rejects a waiting call: the reason reaches the model as a refusal. */
  reject(callId: string, reason: string, details?: { by?: string }): Promise<void>;
}

/**
 * Runs an agent as a child workflow of the calling workflow and returns its result. `agent` is the
 * agent's name, or `agentRef<Output, Context>("coach")` for a typed `output` and `context`. An agent
 * the worker does not have fails the child with `UnknownAgentError` (your workflow sees a
 * `ChildWorkflowFailure` with that cause).
 */
export async function runAgent<A extends AgentLike>(
  agent: A,
  input: AgentInput,
  options: RunAgentOptions<ContextOfAgent<A>> = {},
): Promise<AgentResult<OutputOfAgent<A>>> {
  const handle = await startAgent(agent, input, options);
  return handle.result();
}

/** Starts an agent's run as a child workflow; the handle gives its result and decides its approvals. */
export async function startAgent<A extends AgentLike>(
  agent: A,
  input: AgentInput,
  options: RunAgentOptions<ContextOfAgent<A>> = {},
): Promise<AgentRunHandle<OutputOfAgent<A>>> {
  const name = agentName(agent);
  const args = runArgs(name, input, options);
  const workflowId = options.workflowId ?? `${name}-${uuid4()}`;
  const approvals = new ChildApprovals(workflowId);
  const child = await startChild(WORKFLOW_NAME, {
    workflowId,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [args],
    staticSummary: `agent ${name}`,
    // Your workflow closing first (terminated, timed out) asks the agent's run to cancel: it ends as a cancelled run does.
    parentClosePolicy: options.parentClosePolicy ?? ParentClosePolicy.REQUEST_CANCEL,
    ...defined({ cancellationType: options.cancellationType }),
  });
  return {
    workflowId,
    result: () => agentResult<OutputOfAgent<A>>(child, name),
    pendingApprovals: () => approvals.pending(),
    nextApproval: () => approvals.next(),
    approve: (callId, details = {}) => approvals.decide(callId, "approve", details),
    reject: (callId, reason, details = {}) => approvals.decide(callId, "reject", { ...details, reason }),
  };
}

/** The `agentRun` argument: the input as messages, and the run's options. A bad option fails the calling workflow, naming it. */
function runArgs(name: string, input: AgentInput, options: RunAgentOptions<unknown>): AgentRunArgs {
  if (typeof name !== "string" || name === "")
    throw invalid("agent", `is the agent's name or agentRef("name") (got ${JSON.stringify(name)})`);
  if (typeof input !== "string" && !Array.isArray(input)) throw invalid("input", "is a string or an array of messages");
  const { maxTrips } = options;
  if (maxTrips !== undefined && (!Number.isInteger(maxTrips) || maxTrips < 1))
    throw invalid("maxTrips", `is a whole number of at least 1 (got ${JSON.stringify(maxTrips)})`);
  return {
    agent: name,
    messages: typeof input === "string" ? [{ role: "user", content: input }] : input,
    ...defined({ context: options.context, maxTrips, modelSettings: options.modelSettings }),
  };
}

function invalid(field: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: "AgentOptionsError",
    message: `Invalid option \`${field}\` of runAgent: it ${problem}`,
    nonRetryable: true,
  });
}

/** The child's result as your workflow reads it; a cancelled caller's run ends cancelled, and so does the caller. */
async function agentResult<Output>(child: ChildWorkflowHandle<() => Promise<AgentRunResult>>, name: string) {
  const result = await child.result();
  if (CancellationScope.current().consideredCancelled)
    throw new CancelledFailure(`cancelled while the ${name} agent ran (its run ended: ${result.stopReason})`);
  const { reply, stopReason, toolCalls, usage, workflowId } = result;
  return { reply, output: result.output as Output | undefined, stopReason, toolCalls, usage, workflowId };
}
