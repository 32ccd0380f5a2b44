import { Context, log } from "@temporalio/activity";
import { z } from "zod";
import type { Agent } from "../agent/define-agent.js";
import type { Tool } from "../agent/define-tool.js";
import { PAYLOAD_LIMIT_BYTES } from "../contract/constants.js";
import { refusalReasonOf } from "../contract/tool-result.js";
import type { RequestedToolCall, ToolCallRecord } from "../contract/types.js";
import { PayloadTooLargeError, RetryableToolError, ToolOutputError } from "../errors.js";
import { failureOf, lookupAgent, type AgentRegistry } from "./registry.js";

/** Input of the `tool.execute` activity. */
export interface ToolExecuteInput {
  agent: string;
  call: RequestedToolCall;
  trip: number;
}

/**
 * The `tool.execute` activity: parse, validate, execute and classify one tool call.
 * Bad calls (unknown tool, malformed JSON, invalid input) are refused without executing;
 * a tool that throws is `failed` unless it threw `RetryableToolError`, which Temporal retries.
 */
export function createToolExecute(registry: AgentRegistry) {
  return async function toolExecute({ agent: agentName, call, trip }: ToolExecuteInput): Promise<ToolCallRecord> {
    const agent = lookupAgent(registry, agentName);
    const record = (fields: Omit<ToolCallRecord, "id" | "name" | "trip">): ToolCallRecord => ({ id: call.id, name: call.name, trip, ...fields });
    const tool = agent.tool(call.name);
    if (!tool) {
      const known = agent.tools.map((t) => t.name).join(", ") || "none";
      return record({ input: call.arguments, status: "refused", reason: `Unknown tool "${call.name}". Available tools: ${known}.` });
    }
    let raw: unknown;
    try {
      raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return record({ input: call.arguments, status: "refused", reason: `Arguments for "${call.name}" are not valid JSON (${(error as Error).message}).` });
    }
    const parsed = tool.input.safeParse(raw);
    if (!parsed.success) {
      return record({ input: raw, status: "refused", reason: `Invalid input for "${call.name}": ${z.prettifyError(parsed.error).replace(/\n/g, " ")}` });
    }
    let output: unknown;
    try {
      output = await runTool(tool, parsed.data, call, trip);
    } catch (error) {
      if (RetryableToolError.isInstance(error)) throw failureOf(error, { nonRetryable: false });
      const message = error instanceof Error ? error.message : String(error);
      log.warn("tool call failed", { tool: call.name, error: message });
      return record({ input: raw, status: "failed", error: message });
    }
    const plain = toPlainData(call.name, output);
    if (plain instanceof Error) return record({ input: raw, status: "failed", error: plain.message });
    const reason = refusalReasonOf(plain) ?? customRefusal(agent, call.name, raw, plain);
    return reason === undefined ? record({ input: raw, output: plain, status: "ok" }) : record({ input: raw, output: plain, status: "refused", reason });
  };
}

function runTool(tool: Tool, input: unknown, call: RequestedToolCall, trip: number): Promise<unknown> {
  const context = Context.current();
  const { attempt } = context.info;
  const workflowExecution = context.info.workflowExecution ?? { workflowId: "", runId: "" };
  return Promise.resolve(
    tool.execute(input, {
      workflowId: workflowExecution.workflowId,
      runId: workflowExecution.runId,
      toolCallId: call.id,
      trip,
      attempt,
      idempotencyKey: `${workflowExecution.workflowId}/trip-${trip}/${call.id}`,
      signal: context.cancellationSignal,
      heartbeat: (details) => context.heartbeat(details),
    }),
  );
}

/** The output as JSON data (what the model will see), or the typed error saying why it cannot be. */
function toPlainData(tool: string, output: unknown): unknown {
  let json: string;
  try {
    json = JSON.stringify(output ?? null);
  } catch (error) {
    return new ToolOutputError(tool, (error as Error).message);
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > PAYLOAD_LIMIT_BYTES) return new PayloadTooLargeError(`The output of tool "${tool}"`, bytes, PAYLOAD_LIMIT_BYTES);
  return JSON.parse(json);
}

function customRefusal(agent: Agent, tool: string, input: unknown, output: unknown): string | undefined {
  const option = agent.options.onToolRefusal;
  if (typeof option !== "object" || !option.isRefusal) return undefined;
  const reason = option.isRefusal({ tool, input, output });
  return typeof reason === "string" ? reason : undefined;
}
