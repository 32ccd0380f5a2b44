/**
 * An MCP tool call inside the `tool.execute` activity: validated against the tool's JSON schema,
 * approved if it must be, called on the worker's connection, and classified like any tool call.
 */
import { Context, log } from "@temporalio/activity";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defined } from "../core/defined.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { ApprovalRequired } from "../core/tool-outcome.js";
import type { ToolCallRecord } from "../core/types.js";
import { McpServerError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { fitMcpOutput, type McpContentPart, type McpToolOutput } from "./fit-content.js";
import type { McpToolset } from "./mcp-toolset.js";
import { runMcpTools } from "./run-tool-list.js";

/** The fields of a call's record that the call decides. */
export type McpCallFields = Omit<ToolCallRecord, "id" | "name" | "trip" | "source">;

/** What an MCP call came to: its record's fields, or a request for approval (nothing was called). */
export type McpCallOutcome = McpCallFields | ApprovalRequired;

/** The run's MCP tool of that name and its toolset, if the agent has MCP toolsets and the run listed one. */
export async function findMcpTool(
  toolsets: readonly McpToolset[],
  name: string,
): Promise<{ tool: McpToolDefinition; toolset: McpToolset } | undefined> {
  if (toolsets.length === 0) return undefined;
  const tool = (await runMcpTools(Context.current())).find((t) => t.name === name);
  const toolset = tool && toolsets.find((t) => t.name === tool.server);
  return tool && toolset ? { tool, toolset } : undefined;
}

const validator = new AjvJsonSchemaValidator();
const validators = new Map<string, JsonSchemaValidator<unknown>>();

/** A compiled validator per schema (schemas are fixed per run, and usually across runs). */
function validatorFor(schema: Record<string, unknown>): JsonSchemaValidator<unknown> {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = validator.getValidator(schema as JsonSchemaType);
    validators.set(key, validate);
    if (validators.size > 1000) validators.delete(validators.keys().next().value!);
  }
  return validate;
}

/**
 * Calls the server's tool. Invalid input and a result with `isError: true` are refusals; a server
 * that answered badly or too late is `failed`; a lost connection is thrown for Temporal to retry.
 */
export async function executeMcpCall(
  { tool, toolset }: { tool: McpToolDefinition; toolset: McpToolset },
  input: unknown,
  options: {
    approved: boolean;
    idempotencyKey: string;
    outputLimit: number;
    isRefusal: (output: unknown) => string | undefined;
  },
): Promise<McpCallOutcome> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      input,
      status: "refused",
      reason: `Invalid input for "${tool.name}": the arguments must be a JSON object.`,
    };
  }
  let validate: JsonSchemaValidator<unknown>;
  try {
    validate = validatorFor(tool.inputSchema);
  } catch (error) {
    return {
      input,
      status: "failed",
      error: `MCP server "${tool.server}" lists an input schema for "${tool.tool}" that cannot be compiled: ${(error as Error).message}`,
    };
  }
  const valid = validate(input);
  if (!valid.valid)
    return { input, status: "refused", reason: `Invalid input for "${tool.name}": ${valid.errorMessage}` };
  if (!options.approved && (await toolset.needsApproval(tool, input)))
    return { kind: "approval-required", input, ...defined({ timeoutMs: toolset.approvalTimeoutMs }) };
  const context = Context.current();
  let result: CallToolResult;
  try {
    result = await toolset.connection.callTool(tool.tool, input as Record<string, unknown>, {
      idempotencyKey: options.idempotencyKey,
      signal: context.cancellationSignal,
      onProgress: (progress) => context.heartbeat({ progress }),
    });
  } catch (error) {
    if (!McpServerError.isInstance(error)) throw error; // cancellation
    log.warn("MCP tool call failed", {
      server: tool.server,
      tool: tool.tool,
      retryable: error.retryable,
      error: error.message.slice(0, 500),
    });
    if (error.retryable) throw toFailure(error, { nonRetryable: false });
    return { input, status: "failed", error: error.message };
  }
  const content = (result.content ?? []) as McpContentPart[];
  if (result.isError === true)
    return {
      input,
      status: "refused",
      reason: textOf(content) || `MCP tool "${tool.tool}" reported an error without text`,
    };
  const output: McpToolOutput = { content, ...defined({ structuredContent: result.structuredContent }) };
  const shown = fitMcpOutput(output, options.outputLimit);
  if (shown !== output)
    log.warn("MCP tool output cut: over limits.toolOutputBytes", {
      server: tool.server,
      tool: tool.tool,
      limit: options.outputLimit,
    });
  const reason = options.isRefusal(shown);
  return reason === undefined
    ? { input, output: shown, status: "ok" }
    : { input, output: shown, status: "refused", reason };
}

function textOf(content: McpContentPart[]): string {
  return content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n")
    .slice(0, 4000);
}
