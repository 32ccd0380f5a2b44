import { Context, log } from "@temporalio/activity";
import { z } from "zod";
import type { Agent } from "../agent/define-agent.js";
import type { Tool } from "../agent/define-tool.js";
import { parseToolArguments, refusalReasonOf, toolCallResult, type ToolCallResult } from "../core/tool-result.js";
import type { PlaybackAnswer } from "../core/playback.js";
import type { Message, RequestedToolCall } from "../core/types.js";
import { readRunPart, runRefOf } from "../client/run-reader.js";
import { RetryableToolError, ToolOutputError } from "../errors.js";
import { limitsOf, parseOmittedArguments, truncateOutput, utf8Bytes } from "../limits.js";
import { mcpSource } from "../core/mcp-tools.js";
import { executeMcpCall, findMcpTool } from "../mcp/execute-mcp-call.js";
import { runMcpTools } from "../mcp/run-tool-list.js";
import { failureOf, lookupAgent, type AgentRegistry } from "./registry.js";
import { contextFor } from "../client/run-reader.js";

/** Input of the `tool.execute` activity. */
export interface ToolExecuteInput {
  agent: string;
  call: RequestedToolCall;
  trip: number;
  /** A person approved this call (for tools with `needsApproval`). */
  approved?: boolean;
  /** Messages before the answer that asked for the call (what a handoff's `inputFilter` reads); only older histories send it, the activity finds the answer itself. */
  conversationLength?: number;
  /** The run has a context: read it (by query) for the tool and `isRefusal`. */
  hasContext?: boolean;
  /** In a playback (recorded tools): the recorded outcome to return, or why the call is refused; the tool does not run. */
  replay?: PlaybackAnswer;
  /** The conversation's view, as the model call that asked for the call had it: the worker holds the result with that conversation. */
  view?: number;
}

/** What `tool.execute` returns for a call that needs approval first: nothing has run yet. */
export interface ApprovalRequired {
  approvalRequired: { input: unknown; timeoutMs?: number };
}

/** What `tool.execute` returns for a valid call of a sub-agent tool: the workflow runs the agent as a child workflow. */
export interface SubAgentRequest {
  subAgentCall: { input: unknown; agent: string; message: string };
}

/** What `tool.execute` returns for a handoff tool's call: the run continues with `to` (from `messages`, when an inputFilter trimmed them). */
export interface HandoffRequest {
  handoff: { input: unknown; to: string; messages?: Message[] };
}

/**
 * The `tool.execute` activity: parse, validate, execute and classify one tool call.
 * Bad calls (arguments over `limits.toolInputBytes`, unknown tool, malformed JSON, invalid input)
 * are refused without executing; a tool that throws is `failed` unless it threw
 * `RetryableToolError`, which Temporal retries. Output over `limits.toolOutputBytes` is truncated
 * with a visible marker. A tool of an MCP server (from the run's recorded list) goes the same way
 * (src/mcp/execute-mcp-call.ts), with its JSON schema and the worker's connection to the server.
 */
export function createToolExecute(registry: AgentRegistry) {
  return async function toolExecute({ agent: agentName, call, trip, approved, conversationLength, hasContext, replay }: ToolExecuteInput): Promise<ToolCallResult | ApprovalRequired | SubAgentRequest | HandoffRequest> {
    if (replay) return replayed(call, replay);
    const agent = lookupAgent(registry, agentName);
    let raw: unknown; // the arguments parsed, once they are within the limit
    const record = (fields: ToolCallResult & { input: unknown }): ToolCallResult => toolCallResult(fields, raw);
    const limits = limitsOf(agent.options);
    const oversized = oversizedInput(call.arguments, limits.toolInputBytes);
    if (oversized) {
      log.warn("tool call refused: arguments over limits.toolInputBytes", { tool: call.name, ...oversized });
      return record({
        input: `[${oversized.bytes} bytes omitted]`,
        status: "refused",
        reason: `Arguments for "${call.name}" are ${oversized.bytes} bytes, over the limit of ${oversized.limit} bytes (limits.toolInputBytes); the call was not executed. Send smaller arguments.`,
      });
    }
    const tool = agent.tool(call.name);
    const mcp = tool ? undefined : await findMcpTool(agent.mcpToolsets, call.name);
    raw = parseToolArguments(call);
    if (!tool && !mcp) {
      const known = [...agent.tools.map((t) => t.name), ...(agent.mcpToolsets.length ? (await runMcpTools(Context.current())).map((t) => t.name) : [])].join(", ") || "none";
      return record({ input: call.arguments, status: "refused", reason: `Unknown tool "${call.name}". Available tools: ${known}.` });
    }
    const source = mcp ? { source: mcpSource(mcp.tool.server) } : {};
    if (raw instanceof SyntaxError) return { ...record({ input: call.arguments, status: "refused", reason: `Arguments for "${call.name}" are not valid JSON (${raw.message}).` }), ...source };
    if (!tool) {
      // An MCP server's tool: the same checks and outcomes, with its JSON schema and the worker's connection.
      const context = await contextFor(Context.current(), hasContext);
      const idempotencyKey = toolIdempotencyKey(Context.current().info.workflowExecution?.workflowId ?? "", trip, call.id);
      const outcome = await executeMcpCall(mcp!, raw, { approved: approved === true, idempotencyKey, outputLimit: limits.toolOutputBytes, isRefusal: (output) => customRefusal(agent, call.name, raw, output, context) });
      return "approvalRequired" in outcome ? outcome : { ...record(outcome), ...source };
    }
    const parsed = tool.input.safeParse(raw);
    if (!parsed.success) {
      return record({ input: raw, status: "refused", reason: `Invalid input for "${call.name}": ${z.prettifyError(parsed.error).replace(/\n/g, " ")}` });
    }
    if (!approved && (tool.needsApproval === true || (typeof tool.needsApproval === "function" && (await tool.needsApproval(parsed.data))))) {
      return { approvalRequired: { input: raw, ...(tool.approvalTimeoutMs !== undefined ? { timeoutMs: tool.approvalTimeoutMs } : {}) } };
    }
    if (tool.subAgent) return { subAgentCall: { input: raw, agent: tool.subAgent.agent.name, message: await tool.subAgent.toMessage(parsed.data) } };
    if (tool.handoff) {
      const { agent: to, inputFilter } = tool.handoff;
      if (!inputFilter) return { handoff: { input: raw, to: to.name } };
      const context = Context.current();
      const messages = await messagesBefore(context, call, conversationLength);
      const filtered = await inputFilter(messages);
      if (!Array.isArray(filtered)) return record({ input: raw, status: "failed", error: `The inputFilter of the handoff to ${to.name} returned ${typeof filtered}, not an array of messages.` });
      return { handoff: { input: raw, to: to.name, messages: filtered } };
    }
    const context = await contextFor(Context.current(), hasContext);
    let output: unknown;
    try {
      output = await runTool(tool, parsed.data, call, trip, context);
    } catch (error) {
      if (RetryableToolError.isInstance(error)) throw failureOf(error, { nonRetryable: false });
      const message = error instanceof Error ? error.message : String(error);
      log.warn("tool call failed", { tool: call.name, error: message.slice(0, 500) });
      const fits = utf8Bytes(message) <= limits.toolOutputBytes;
      return record({ input: raw, status: "failed", error: fits ? message : truncateOutput(call.name, message, limits.toolOutputBytes) });
    }
    const json = toJson(call.name, output);
    if (json instanceof Error) return record({ input: raw, status: "failed", error: json.message });
    const plain: unknown = JSON.parse(json);
    const reason = refusalReasonOf(plain) ?? customRefusal(agent, call.name, raw, plain, context);
    const shown = fitOutput(call.name, json, plain, limits.toolOutputBytes);
    return reason === undefined ? record({ input: raw, output: shown, status: "ok" }) : record({ input: raw, output: shown, status: "refused", reason });
  };
}

/** A replay's answer: the recorded outcome (marked `replayed`), or a refusal of a call the recording does not hold. Nothing runs. */
function replayed(call: RequestedToolCall, answer: PlaybackAnswer): ToolCallResult {
  if ("recorded" in answer) return { ...answer.recorded, replayed: true };
  const parsed = parseToolArguments(call);
  return { ...(parsed instanceof SyntaxError ? { input: call.arguments } : {}), status: "refused", reason: answer.unmatched };
}

/** The run's messages before the answer that asked for `call`: what a handoff's `inputFilter` reads. */
async function messagesBefore(context: Context, call: RequestedToolCall, length: number | undefined): Promise<Message[]> {
  const ref = runRefOf(context);
  if (length !== undefined) return readRunPart<Message>(context.client, ref, "messages", 0, length);
  const messages = await readRunPart<Message>(context.client, ref, "messages", 0);
  const answer = messages.findLastIndex((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === call.id));
  if (answer < 0) throw new Error(`run ${ref.runId} has no answer asking for tool call ${call.id}`);
  return messages.slice(0, answer);
}

/** Sizes of arguments over the limit: as sent, or as marked by the model call when it dropped them. */
function oversizedInput(args: string, limit: number): { bytes: number; limit: number } | undefined {
  const omitted = parseOmittedArguments(args);
  if (omitted) return omitted;
  const bytes = utf8Bytes(args);
  return bytes > limit ? { bytes, limit } : undefined;
}

/** The output as the model will see it: as is, or its JSON cut to the limit with a marker. */
function fitOutput(tool: string, json: string, plain: unknown, limit: number): unknown {
  const bytes = utf8Bytes(json);
  if (bytes <= limit) return plain;
  log.warn("tool output truncated: over limits.toolOutputBytes", { tool, bytes, limit });
  return truncateOutput(tool, json, limit);
}

/** A tool call's `ctx.idempotencyKey` (and an MCP call's `_meta` key): the same on every attempt. */
function toolIdempotencyKey(workflowId: string, trip: number, callId: string): string {
  return `${workflowId}/trip-${trip}/${callId}`;
}

function runTool(tool: Tool, input: unknown, call: RequestedToolCall, trip: number, runContext: unknown): Promise<unknown> {
  const context = Context.current();
  const { attempt } = context.info;
  const workflowExecution = context.info.workflowExecution ?? { workflowId: "", runId: "" };
  return Promise.resolve(
    tool.execute(input, {
      workflowId: workflowExecution.workflowId,
      runId: workflowExecution.runId,
      context: runContext,
      toolCallId: call.id,
      trip,
      attempt,
      idempotencyKey: toolIdempotencyKey(workflowExecution.workflowId, trip, call.id),
      signal: context.cancellationSignal,
      heartbeat: (details) => context.heartbeat(details),
    }),
  );
}

/** The output as JSON text, or the typed error saying why it cannot be. */
function toJson(tool: string, output: unknown): string | ToolOutputError {
  try {
    return JSON.stringify(output ?? null) ?? "null";
  } catch (error) {
    return new ToolOutputError(tool, (error as Error).message);
  }
}

function customRefusal(agent: Agent, tool: string, input: unknown, output: unknown, context: unknown): string | undefined {
  const option = agent.options.onToolRefusal;
  if (typeof option !== "object" || !option.isRefusal) return undefined;
  const reason = option.isRefusal({ tool, input, output, context });
  return typeof reason === "string" ? reason : undefined;
}
