/**
 * The AI SDK's tools in `ai.agent({ tools })`: a record `{ name: tool }` may hold tools made with
 * the AI SDK's `tool()` (each call runs its `execute` as an activity, as an `ai.tool()` call does)
 * and provider-defined tools (`anthropic.tools.webSearch_20250305()`, `openai.tools.webSearch()`),
 * which run at the provider: they are passed to the model call as they are, and the model's answer
 * carries their calls and results. Recognised by shape: nothing here imports `ai`.
 */
import { z } from "zod";
import { AgentOptionsError } from "../errors.js";
import { McpToolset } from "../mcp/mcp-toolset.js";
import type { Tool, ToolContext } from "./define-tool.js";

/** An AI SDK tool (`tool()` of `ai`, or a provider-defined tool), by the fields read here. */
interface AiSdkToolShape {
  type?: string;
  id?: string;
  args?: Record<string, unknown>;
  description?: string;
  inputSchema?: unknown;
  execute?: (input: unknown, options: Record<string, unknown>) => unknown;
  needsApproval?: boolean | ((input: unknown, options: Record<string, unknown>) => boolean | Promise<boolean>);
}

/** A record's entry, or an array's: an `ai.tool()` tool, an MCP toolset, or an AI SDK tool. */
export type ToolEntry = Tool | McpToolset | object;

function isOurTool(value: object): value is Tool {
  return "jsonSchema" in value && "name" in value && typeof (value as Tool).execute === "function";
}

function isProviderTool(value: AiSdkToolShape): boolean {
  return (value.type === "provider" || value.type === "provider-defined") && typeof value.id === "string";
}

/** Whether `value` looks like a tool of the AI SDK (made by `tool()`, `dynamicTool()`, or a provider). */
export function looksLikeAiSdkTool(value: unknown): boolean {
  if (typeof value !== "object" || value === null || value instanceof McpToolset || isOurTool(value)) return false;
  return isProviderTool(value as AiSdkToolShape) || "inputSchema" in value;
}

/**
 * The agent's tools as a list: an array as it is, a record's entries each named by its key (an
 * AI SDK tool becomes a `Tool`). Throws `AgentOptionsError` for an entry that is no tool.
 */
export function listTools(
  tools: readonly ToolEntry[] | Record<string, ToolEntry> | undefined,
): Array<Tool | McpToolset> {
  if (tools === undefined) return [];
  if (Array.isArray(tools))
    return tools.map((entry, i) => {
      if (looksLikeAiSdkTool(entry))
        throw new AgentOptionsError(
          `tools[${i}]`,
          "is a tool of the AI SDK, which has no name: pass tools as a record, tools: { name: tool({ ... }) }",
        );
      return entry as Tool | McpToolset;
    });
  if (typeof tools !== "object" || tools === null)
    throw new AgentOptionsError("tools", "must be an array of ai.tool() definitions or a record { name: tool }");
  return Object.entries(tools).map(([name, entry]) => {
    if (typeof entry !== "object" || entry === null) return entry as Tool; // refused by the agent's checks, naming it
    if (entry instanceof McpToolset) return entry;
    if (isOurTool(entry)) {
      if (entry.name !== name)
        throw new AgentOptionsError(`tools.${name}`, `holds ai.tool() "${entry.name}": use the same name as its key`);
      return entry;
    }
    return fromAiSdkTool(name, entry as AiSdkToolShape);
  });
}

/** An AI SDK tool as a `Tool` named `name`. */
function fromAiSdkTool(name: string, tool: AiSdkToolShape): Tool {
  const field = `tools.${name}`;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw new AgentOptionsError(field, `tool names are 1-64 letters, digits, "_" or "-" (got ${JSON.stringify(name)})`);
  const provider = isProviderTool(tool);
  if (!provider && !("inputSchema" in tool))
    throw new AgentOptionsError(field, "must be ai.tool(), ai.mcp(), a tool of the AI SDK's tool() or a provider tool");
  const execute = tool.execute;
  if (!provider && typeof execute !== "function")
    throw new AgentOptionsError(
      field,
      `the AI SDK tool "${name}" has no execute: tools run on the worker, so give it execute (and needsApproval ` +
        "for a person's decision)",
    );
  const schema = provider ? { input: z.unknown(), jsonSchema: {} } : schemaOf(tool.inputSchema, field);
  const approval = tool.needsApproval;
  return {
    name,
    description: tool.description,
    ...schema,
    execute: execute
      ? (input: unknown, context: ToolContext) => lastValue(execute(input, aiSdkOptions(context)))
      : () => {
          throw new Error(`the provider runs "${name}"`);
        },
    needsApproval:
      typeof approval === "function"
        ? (input: unknown) => approval(input, { toolCallId: "", messages: [] })
        : (approval ?? false),
    approvalTimeout: undefined,
    approvalTimeoutMs: undefined,
    execution: "activity",
    ...(provider ? { providerTool: { id: tool.id!, args: tool.args ?? {} } } : {}),
  };
}

/** The AI SDK's `ToolExecutionOptions` for a call, with our context's fields besides. */
function aiSdkOptions(context: ToolContext): Record<string, unknown> {
  return { ...context, messages: [], abortSignal: context.signal, experimental_context: context.context };
}

/** A tool's result; a streaming tool (an async iterable) gives its last value, as the AI SDK's final output. */
async function lastValue(result: unknown): Promise<unknown> {
  const value = await result;
  if (typeof value !== "object" || value === null || !(Symbol.asyncIterator in value)) return value;
  let last: unknown;
  for await (const item of value as AsyncIterable<unknown>) last = item;
  return last;
}

/** A zod (v4) schema, or the AI SDK's `jsonSchema()`: the input's validation and the JSON schema the model sees. */
function schemaOf(schema: unknown, field: string): { input: z.ZodType; jsonSchema: Record<string, unknown> } {
  if (typeof schema === "object" && schema !== null && "_zod" in schema) {
    const { $schema: _ignored, ...json } = z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" });
    return { input: schema as z.ZodType, jsonSchema: json as Record<string, unknown> };
  }
  const json =
    typeof schema === "object" && schema !== null ? (schema as { jsonSchema?: unknown }).jsonSchema : undefined;
  if (typeof json === "object" && json !== null && typeof (json as { then?: unknown }).then !== "function") {
    const { $schema: _ignored, ...rest } = json as Record<string, unknown>;
    return { input: z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]), jsonSchema: rest };
  }
  throw new AgentOptionsError(
    `${field}.inputSchema`,
    "must be a zod (v4) schema or the AI SDK's jsonSchema({ ... }) (zod 3 and other schema libraries: convert to one of them)",
  );
}
