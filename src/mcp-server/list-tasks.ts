/**
 * `tasks/list`: a caller's tasks are their calls' runs, found in Temporal's visibility store by
 * the workflow id prefix every call of theirs has (no search attribute to register, nothing kept
 * by the server), so the list survives the server's restart and spans the caller's MCP sessions,
 * as `tasks/get` does. A page is one visibility page; its cursor is the store's page token. Each
 * task is then read as `tasks/get` reads it (its run described), so a listed status is never
 * staler than `tasks/get`'s. Visibility is eventually consistent: a call made a moment ago may be
 * listed a moment later.
 */
import type { Client } from "@temporalio/client";
import { ErrorCode, McpError, type ListTasksResult, type Task } from "@modelcontextprotocol/sdk/types.js";
import { WORKFLOW_NAME } from "../core/constants.js";
import { decodePageToken, encodePageToken, listExecutionsPage } from "../run-reads/index.js";
import { callPrefix } from "./call-ids.js";
import { readTask } from "./call-tasks.js";

/** A string literal of Temporal's list filter. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

const invalidCursor = (cursor: string) =>
  new McpError(
    ErrorCode.InvalidParams,
    `Invalid cursor: ${cursor} (pass the nextCursor of the last tasks/list as it is)`,
  );

/** One page of `by`'s tasks, at most `pageSize`, and the cursor of the next page when there may be more. */
export async function listTasks(
  client: Client,
  by: string,
  cursor: string | undefined,
  pageSize: number,
): Promise<ListTasksResult> {
  const query = [
    `WorkflowType = ${quoted(WORKFLOW_NAME)}`,
    `WorkflowId STARTS_WITH ${quoted(callPrefix(by))}`,
    `ExecutionStatus != "ContinuedAsNew"`, // a run that continued as new is listed once, as its latest run
  ].join(" AND ");
  const pageToken = decodePageToken(cursor);
  if (!pageToken) throw invalidCursor(cursor!);
  const response = await listExecutionsPage(client, { query, pageSize, pageToken }, (error) =>
    cursor !== undefined ? invalidCursor(cursor) : error,
  );
  // A sub-agent's run (a child, whose id starts with its caller's) is part of a call, not a call.
  const ids = response.executions.filter((raw) => !raw.parentExecution).map((raw) => raw.execution!.workflowId!);
  const tasks = (await Promise.all(ids.map((id) => readTask(client, id)))).filter((task): task is Task => !!task);
  const nextCursor = encodePageToken(response.nextPageToken);
  return { tasks, ...(nextCursor ? { nextCursor } : {}) };
}
