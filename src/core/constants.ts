/** Defaults and limits in one place. */

/** Default agent name, so `ai.agent({ model, tools })` works as in the specification. */
export const DEFAULT_AGENT_NAME = "agent";
/** Default bound on model calls per run. */
export const DEFAULT_MAX_TRIPS = 10;
/** Temporal rejects payloads of 2 MiB; we stop a little short to leave room for the envelope. */
export const PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024 - 16 * 1024;
/** Default task queue, overridden by `TEMPORAL_TASK_QUEUE` or options. */
export const DEFAULT_TASK_QUEUE = "durable-agent";
/** Default Temporal address, overridden by `TEMPORAL_ADDRESS` or options. */
export const DEFAULT_TEMPORAL_ADDRESS = "localhost:7233";
/** Default namespace, overridden by `TEMPORAL_NAMESPACE` or options. */
export const DEFAULT_NAMESPACE = "default";
/** Default activity timeouts (`heartbeat`: tool calls and the other activities; model calls have their own, below). */
export const DEFAULT_TIMEOUTS = { model: "2 minutes", tool: "1 minute", heartbeat: "5 seconds" } as const;
/**
 * A model call's heartbeat timeout when the agent sets no `timeouts.heartbeat`. Shorter than the
 * tools' 5 s: a model call heartbeats at least every 250 ms, streaming or silent, and runs
 * no user code that could block the worker's event loop, and a crashed worker's answer goes on this
 * much later (with `MODEL_RETRY.lostAttempt`).
 */
export const DEFAULT_MODEL_HEARTBEAT = "2.5 seconds";
/**
 * Model calls' retries. A failed attempt waits `initialMs`, doubling to `maximumMs` (or the
 * server's `Retry-After`): the worker names each delay (`nextRetryDelay`). An attempt lost with its
 * worker (a heartbeat timeout, which names no delay) is retried after `lostAttempt`.
 */
export const MODEL_RETRY = {
  initialMs: 1_000,
  backoffCoefficient: 2,
  maximumMs: 60_000,
  maximumAttempts: 10,
  lostAttempt: "200 milliseconds",
} as const;
/** Stable names recorded in every history: change them only with a versioned migration. */
export const WORKFLOW_NAME = "agentRun";
export const SESSION_WORKFLOW_NAME = "agentSession";
export const ACTIVITY = {
  describe: "agent.describe",
  modelCall: "model.call",
  toolExecute: "tool.execute",
  contractEvaluate: "contract.evaluate",
  backstopRun: "backstop.run",
  runLoad: "run.load",
  mcpList: "mcp.list",
  subAgentResult: "subagent.result",
  approvalCanDecide: "approval.can-decide",
  memoryRecall: "memory.recall",
  memoryRemember: "memory.remember",
} as const;
/** The workflow id prefix of the runs an eval starts: the studio hides them from its runs list by it. */
export const EVAL_WORKFLOW_ID_PREFIX = "durable-agent-eval-";
