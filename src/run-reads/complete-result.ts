import type { Client } from "@temporalio/client";
import { readRunPart } from "./run-reader.js";
import { MAX_PAGE_BYTES } from "../core/paging.js";
import type { Message, RunResult, ToolCallRecord } from "../core/types.js";
import type { AgentRunResult } from "../workflows/definitions.js";

/** A run's whole result: messages and tool calls left out of a large result are read from the run in pages. */
export async function completeResult(client: Client, result: AgentRunResult): Promise<RunResult> {
  const { paged, ...rest } = result;
  if (!paged) return rest;
  const ref = { workflowId: result.workflowId, runId: result.runId };
  const [messages, toolCalls] = await Promise.all([
    readRunPart<Message>(client, ref, "messages", 0, paged.messages, MAX_PAGE_BYTES),
    readRunPart<ToolCallRecord>(client, ref, "toolCalls", 0, paged.toolCalls, MAX_PAGE_BYTES),
  ]);
  return { ...rest, messages, toolCalls };
}
