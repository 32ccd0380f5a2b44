/**
 * The workflow ids of MCP calls. A call's run is `mcp-<caller tag>-<agent>-<session>-<request id>`:
 * the same request retried in its session names the same run, and the caller tag (a digest of
 * `by`) makes a run, or a task (whose id is the run's workflow id), another caller's "not found",
 * and lists a caller's tasks (`tasks/list`: the runs whose ids start with the caller's prefix).
 */
import { createHash } from "node:crypto";

/** The caller's tag: the first 16 hex digits of the SHA-256 of `by`. */
function callerTag(by: string): string {
  return createHash("sha256").update(by).digest("hex").slice(0, 16);
}

/** The workflow id of a call: one per caller, agent, MCP session and JSON-RPC request id. */
export function callWorkflowId(by: string, agent: string, sessionId: string, requestId: string | number): string {
  return `mcp-${callerTag(by)}-${agent}-${sessionId}-${String(requestId)}`;
}

/** The id of the durable session an MCP session is (with `session: true`), under the caller's tag. */
export function callSessionId(by: string, sessionId: string): string {
  return `mcp-${callerTag(by)}-${sessionId}`;
}

/**
 * The id of the session message a call in a session is (with `session: true`): the `send` Update's
 * id, from the request id and a digest of the message, so the same request retried in its MCP
 * session is the same message, while a request id used again for another message (a client that
 * reconnects to its session numbers its requests from 0 again) is a new one.
 */
export function callMessageId(requestId: string | number, message: string): string {
  return `mcp-request-${String(requestId)}-${createHash("sha256").update(message).digest("hex").slice(0, 16)}`;
}

/** The start of every workflow id of this caller's calls. */
export function callPrefix(by: string): string {
  return `mcp-${callerTag(by)}-`;
}

/** Whether a workflow id is a call this caller made (anything else is "not found" to them). */
export function isCallOf(by: string, workflowId: string): boolean {
  return workflowId.startsWith(callPrefix(by));
}

/** The agent a caller's call was made to, of those served (the longest name that fits, as names may hold "-"). */
export function agentOfCall<A extends { name: string }>(
  by: string,
  workflowId: string,
  agents: readonly A[],
): A | undefined {
  const fits = agents.filter((agent) => workflowId.startsWith(`${callPrefix(by)}${agent.name}-`));
  return fits.sort((a, b) => b.name.length - a.name.length)[0];
}
