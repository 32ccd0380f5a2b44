import { Context, log } from "@temporalio/activity";
import { z } from "zod";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { approvalTimeoutMsOf, type HandoffLink, type SubAgentLink, type Tool } from "../agent/define-tool.js";
import type { ToolExecuteInput } from "../core/activity-types.js";
import { defined } from "../core/defined.js";
import { parseToolArguments, refusalReasonOf, toolCallResult, type ToolCallResult } from "../core/tool-result.js";
import type {
  ApprovalRequired,
  HandoffRequest,
  SubAgentRequest,
  ToolOutcome,
  ToolResultOutcome,
} from "../core/tool-outcome.js";
import type { PlaybackAnswer } from "../core/playback.js";
import type { RemoteToolRequest, RemoteToolTarget } from "../core/remote-tool.js";
import type { Message, RequestedToolCall } from "../core/types.js";
import { RetryableToolError, ToolOutputError } from "../errors.js";
import { limitsOf, parseOmittedArguments, truncateOutput, utf8Bytes, type ResolvedLimits } from "../limits.js";
import { mcpSource, type McpToolDefinition } from "../core/mcp-tools.js";
import { executeMcpCall, findMcpTool } from "../mcp/execute-mcp-call.js";
import type { McpToolset } from "../mcp/mcp-toolset.js";
import { runMcpTools } from "../mcp/run-tool-list.js";
import { lookupAgent, type AgentRegistry } from "./registry.js";
import { toFailure } from "../core/typed-failures.js";
import { contextFor, readRunPart, runRefOf } from "../run-reads/index.js";

/**
 * The `tool.execute` activity: one tool call, in steps. Bad calls (arguments over
 * `limits.toolInputBytes`, unknown tool, malformed JSON, invalid input) are refused without
 * executing; a call that needs approval, a sub-agent tool's call and a handoff are returned to the
 * workflow as requests; otherwise the tool runs and its output is classified (`ok`, `failed` or
 * `refused`). A tool that throws is `failed` unless it threw `RetryableToolError`, which Temporal
 * retries. Output over `limits.toolOutputBytes` is truncated with a visible marker. A tool of an
 * MCP server (from the run's recorded list) goes the same way (src/mcp/execute-mcp-call.ts), with
 * its JSON schema and the worker's connection to the server.
 */
export function createToolExecute(registry: AgentRegistry) {
  return async function toolExecute(input: ToolExecuteInput): Promise<ToolOutcome> {
    if (input.replay) return playBack(input.call, input.replay);
    const agent = lookupAgent(registry, input.agent);
    const limits = limitsOf(agent.options);
    const oversized = refuseOversized(input.call, limits.toolInputBytes);
    if (oversized) return oversized;
    const found = await findTool(agent, input.call);
    if (!found) return refuseUnknown(agent, input.call);
    const raw = parseToolArguments(input.call);
    if (raw instanceof SyntaxError) return refuseMalformed(input.call, raw, found);
    const call: ParsedCall = { ...input, agent, raw, limits };
    return found.tool ? callTool(call, found.tool) : callMcpTool(call, found.mcp);
  };
}

/** A call whose tool is found and whose arguments are JSON: what the later steps work on. */
interface ParsedCall extends Omit<ToolExecuteInput, "agent" | "replay"> {
  agent: AgentDefinition;
  /** The arguments parsed. */
  raw: unknown;
  limits: ResolvedLimits;
}

/** The agent's tool, or the run's MCP tool, that the call names. */
type FoundTool =
  { tool: Tool; mcp?: undefined } | { tool?: undefined; mcp: { tool: McpToolDefinition; toolset: McpToolset } };

/** A finished call's outcome; its input is left out when it is the call's arguments parsed (`raw`). */
function finished(fields: ToolCallResult & { input: unknown }, raw: unknown): ToolResultOutcome {
  return { kind: "result", ...toolCallResult(fields, raw) };
}

/** Step: in a playback, the recorded outcome (marked `replayed`), or a refusal of a call not in it. Nothing runs. */
function playBack(call: RequestedToolCall, answer: PlaybackAnswer): ToolResultOutcome {
  if ("recorded" in answer) return { kind: "result", ...answer.recorded, replayed: true };
  const parsed = parseToolArguments(call);
  return {
    kind: "result",
    ...defined({ input: parsed instanceof SyntaxError ? call.arguments : undefined }),
    status: "refused",
    reason: answer.unmatched,
  };
}

/** Step: arguments over `limits.toolInputBytes` (as sent, or as the model call marked them) are refused. */
function refuseOversized(call: RequestedToolCall, limit: number): ToolResultOutcome | undefined {
  const oversized = oversizedInput(call.arguments, limit);
  if (!oversized) return undefined;
  log.warn("tool call refused: arguments over limits.toolInputBytes", { tool: call.name, ...oversized });
  const reason =
    `Arguments for "${call.name}" are ${oversized.bytes} bytes, over the limit of ${oversized.limit} bytes ` +
    "(limits.toolInputBytes); the call was not executed. Send smaller arguments.";
  return { kind: "result", input: `[${oversized.bytes} bytes omitted]`, status: "refused", reason };
}

/** Step: the agent's tool of the call's name, else the run's MCP tool of that name. */
async function findTool(agent: AgentDefinition, call: RequestedToolCall): Promise<FoundTool | undefined> {
  const tool = agent.tool(call.name);
  if (tool) return { tool };
  const mcp = await findMcpTool(agent.mcpToolsets, call.name);
  return mcp ? { mcp } : undefined;
}

/** Step: a call of a tool the agent does not have is refused, naming the tools it has. */
async function refuseUnknown(agent: AgentDefinition, call: RequestedToolCall): Promise<ToolResultOutcome> {
  const mcpTools = agent.mcpToolsets.length ? await runMcpTools(Context.current()) : [];
  const known = [...agent.tools, ...mcpTools].map((t) => t.name).join(", ") || "none";
  return {
    kind: "result",
    input: call.arguments,
    status: "refused",
    reason: `Unknown tool "${call.name}". Available tools: ${known}.`,
  };
}

/** Step: arguments that are not JSON are refused. */
function refuseMalformed(call: RequestedToolCall, error: SyntaxError, found: FoundTool): ToolResultOutcome {
  const reason = `Arguments for "${call.name}" are not valid JSON (${error.message}).`;
  return {
    kind: "result",
    input: call.arguments,
    status: "refused",
    reason,
    ...defined({ source: found.mcp && mcpSource(found.mcp.tool.server) }),
  };
}

/** An `ai.tool`'s call: validate its input, ask for approval, hand it to the workflow (sub-agent, handoff) or run it. */
async function callTool(call: ParsedCall, tool: Tool): Promise<ToolOutcome> {
  const valid = tool.input.safeParse(call.raw);
  if (!valid.success) {
    const reason = `Invalid input for "${call.call.name}": ${z.prettifyError(valid.error).replace(/\n/g, " ")}`;
    return finished({ input: call.raw, status: "refused", reason }, call.raw);
  }
  if (!call.approved && (await needsApproval(tool, valid.data))) return askApproval(tool, call.raw);
  if (tool.subAgent) return subAgentRequest(tool.subAgent, call.raw, valid.data);
  if (tool.handoff) return handoffRequest(tool.handoff, call);
  if (tool.remote) return remoteRequest(tool.remote, call, valid.data);
  const context = await contextFor(Context.current(), call.hasContext);
  const ran = await runTool(tool, valid.data, call, context);
  return "error" in ran ? failed(call, ran.error) : classifyOutput(call, ran.output, context);
}

/** Step: whether the tool's `needsApproval` asks for a person's approval of this input. */
async function needsApproval(tool: Tool, input: unknown): Promise<boolean> {
  return tool.needsApproval === true || (typeof tool.needsApproval === "function" && (await tool.needsApproval(input)));
}

/** Step: ask the workflow to wait for a person's approval; nothing has run. */
function askApproval(tool: Tool, input: unknown): ApprovalRequired {
  return {
    kind: "approval-required",
    input,
    ...defined({ timeoutMs: approvalTimeoutMsOf(tool) }),
  };
}

/** Step: ask the workflow to run the sub-agent (a child workflow), with the message its tool makes of the input. */
async function subAgentRequest(link: SubAgentLink, input: unknown, data: unknown): Promise<SubAgentRequest> {
  return { kind: "sub-agent", input, agent: link.agent.name, message: await link.toMessage(data) };
}

/** Step: ask the workflow to call the remote tool's activity or workflow on its task queue, with the input the schema parsed. */
function remoteRequest(target: RemoteToolTarget, call: ParsedCall, args: unknown): RemoteToolRequest {
  return { kind: "remote", input: call.raw, args, target, outputLimit: call.limits.toolOutputBytes };
}

/** Step: ask the workflow to hand the run over, with what the handoff's `inputFilter` leaves of the conversation. */
async function handoffRequest(
  { agent: to, inputFilter }: HandoffLink,
  call: ParsedCall,
): Promise<HandoffRequest | ToolResultOutcome> {
  if (!inputFilter) return { kind: "handoff", input: call.raw, to: to.name };
  const messages = await messagesBefore(Context.current(), call.call, call.conversationLength);
  const filtered = await inputFilter(messages);
  if (!Array.isArray(filtered)) {
    return finished(
      {
        input: call.raw,
        status: "failed",
        error: `The inputFilter of the handoff to ${to.name} returned ${typeof filtered}, not an array of messages.`,
      },
      call.raw,
    );
  }
  return { kind: "handoff", input: call.raw, to: to.name, messages: filtered };
}

/**
 * Step: runs the tool's `execute`: what it returned, or the message of what it threw (a
 * `RetryableToolError` is thrown on, for Temporal to retry).
 */
async function runTool(
  tool: Tool,
  input: unknown,
  call: ParsedCall,
  runContext: unknown,
): Promise<{ output: unknown } | { error: string }> {
  const context = Context.current();
  const { attempt } = context.info;
  const { workflowId, runId } = context.info.workflowExecution ?? { workflowId: "", runId: "" };
  const { id: toolCallId, name } = call.call;
  try {
    const output: unknown = await tool.execute(input, {
      workflowId,
      runId,
      context: runContext,
      toolCallId,
      trip: call.trip,
      attempt,
      idempotencyKey: toolIdempotencyKey(workflowId, call.trip, toolCallId),
      signal: context.cancellationSignal,
      heartbeat: (details) => context.heartbeat(details),
      ...defined({ user: call.user, workingMemorySeen: call.workingMemorySeen }),
    });
    return { output };
  } catch (error) {
    if (RetryableToolError.isInstance(error)) throw toFailure(error, { nonRetryable: false });
    const message = error instanceof Error ? error.message : String(error);
    log.warn("tool call failed", { tool: name, error: message.slice(0, 500) });
    return { error: message };
  }
}

/** Step: a tool that threw is `failed`, with its message (cut to `limits.toolOutputBytes`). */
function failed(call: ParsedCall, message: string): ToolResultOutcome {
  const limit = call.limits.toolOutputBytes;
  const error = utf8Bytes(message) <= limit ? message : truncateOutput(call.call.name, message, limit);
  return finished({ input: call.raw, status: "failed", error }, call.raw);
}

/**
 * Step: the output as the model sees it, and what the call came to: `refused` when the output (or
 * `onToolRefusal.isRefusal`) says so, `failed` when it is not JSON, else `ok`.
 */
function classifyOutput(call: ParsedCall, output: unknown, context: unknown): ToolResultOutcome {
  const { name } = call.call;
  const json = toJson(name, output);
  if (json instanceof Error) return finished({ input: call.raw, status: "failed", error: json.message }, call.raw);
  const plain: unknown = JSON.parse(json);
  const reason = refusalReasonOf(plain) ?? customRefusal(call.agent, name, call.raw, plain, context);
  const shown = fitOutput(name, json, plain, call.limits.toolOutputBytes);
  const fields = reason === undefined ? { status: "ok" as const } : { status: "refused" as const, reason };
  return finished({ input: call.raw, output: shown, ...fields }, call.raw);
}

/** An MCP server's tool: the same checks and outcomes, with its JSON schema and the worker's connection. */
async function callMcpTool(
  call: ParsedCall,
  mcp: { tool: McpToolDefinition; toolset: McpToolset },
): Promise<ToolOutcome> {
  const context = await contextFor(Context.current(), call.hasContext);
  const idempotencyKey = toolIdempotencyKey(
    Context.current().info.workflowExecution?.workflowId ?? "",
    call.trip,
    call.call.id,
  );
  const outcome = await executeMcpCall(mcp, call.raw, {
    approved: call.approved === true,
    idempotencyKey,
    outputLimit: call.limits.toolOutputBytes,
    isRefusal: (output) => customRefusal(call.agent, call.call.name, call.raw, output, context),
  });
  return "kind" in outcome ? outcome : { ...finished(outcome, call.raw), source: mcpSource(mcp.tool.server) };
}

/** The run's messages before the answer that asked for `call`: what a handoff's `inputFilter` reads. */
async function messagesBefore(
  context: Context,
  call: RequestedToolCall,
  length: number | undefined,
): Promise<Message[]> {
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

/** The output as JSON text, or the typed error saying why it cannot be. */
function toJson(tool: string, output: unknown): string | ToolOutputError {
  try {
    return JSON.stringify(output ?? null) ?? "null";
  } catch (error) {
    return new ToolOutputError(tool, (error as Error).message);
  }
}

function customRefusal(
  agent: AgentDefinition,
  tool: string,
  input: unknown,
  output: unknown,
  context: unknown,
): string | undefined {
  const option = agent.options.onToolRefusal;
  if (typeof option !== "object" || !option.isRefusal) return undefined;
  const reason = option.isRefusal({ tool, input, output, context });
  return typeof reason === "string" ? reason : undefined;
}
