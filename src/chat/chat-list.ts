/**
 * A caller's chats, for `GET {api}`: the agent's sessions from Temporal's visibility (no worker,
 * no query to a workflow), those whose owner is the caller, newest first, each with the first
 * words of its first message and when its last message came (the session's memo).
 */
import type { Client } from "@temporalio/client";
import { SESSION_WORKFLOW_NAME } from "../core/constants.js";
import { SESSION_OWNER_MEMO, SESSION_TITLE_MEMO, SESSION_UPDATED_MEMO } from "../core/session-memo.js";

/** A chat in the caller's list. */
export interface ChatSummary {
  /** The chat id (the session's id): `useChat({ id })`. */
  id: string;
  /** The first words of its first message ("" for a chat started before they were recorded). */
  firstWords: string;
  /** When its last message came (ISO 8601); for a chat started before it was recorded, when its session (or its latest run) started. */
  updated: string;
  /** False once the chat's session has ended: it takes no more messages. */
  open: boolean;
}

/** The most chats one list holds: the newest. */
export const MAX_LISTED_CHATS = 200;

/** The chats of `owner` with `agent`, newest message first (at most `MAX_LISTED_CHATS`). */
export async function listChats(client: Client, agent: string, owner: string): Promise<ChatSummary[]> {
  const prefix = `${agent}-session-`;
  const query = [
    `WorkflowType = ${quoted(SESSION_WORKFLOW_NAME)}`,
    `WorkflowId STARTS_WITH ${quoted(prefix)}`,
    `ExecutionStatus != "ContinuedAsNew"`,
  ].join(" AND ");
  const chats: ChatSummary[] = [];
  for await (const info of client.workflow.list({ query })) {
    if (info.memo?.[SESSION_OWNER_MEMO] !== owner) continue;
    const title = info.memo[SESSION_TITLE_MEMO];
    const updated = info.memo[SESSION_UPDATED_MEMO];
    chats.push({
      id: info.workflowId.slice(prefix.length),
      firstWords: typeof title === "string" ? title : "",
      updated: typeof updated === "string" ? updated : info.startTime.toISOString(),
      open: info.status.name === "RUNNING",
    });
    if (chats.length === MAX_LISTED_CHATS) break;
  }
  return chats.sort((a, b) => b.updated.localeCompare(a.updated));
}

/** A string literal of Temporal's list filter. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
