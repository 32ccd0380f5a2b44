/**
 * What the layers built on an agent read of it: the client, eval, the worker's registry and activities.
 * The `Agent` class implements it; those layers import this type, never the class, so the class
 * can reach them (its `run`, `session`, `eval`) without an import circle.
 */
import type { McpToolset } from "../mcp/mcp-toolset.js";
import type { Tool } from "./define-tool.js";
import type { AgentOptions } from "./options.js";

/** An agent's definition: its name, its options and its tools (an `Agent` is one). */
export interface AgentDefinition {
  /** How workers find this agent. */
  readonly name: string;
  /** The definition's fingerprint, or `options.version`: every run records the version that served it. */
  readonly version: string;
  /** Model calls per run. */
  readonly maxTrips: number;
  /** The options it was defined with. */
  readonly options: Readonly<AgentOptions>;
  /** The agent's `ai.tool()` tools, its handoffs' `transfer_to_<name>` tools included. */
  readonly tools: Tool[];
  /** The agent's MCP toolsets (`ai.mcp()`). */
  readonly mcpToolsets: readonly McpToolset[];
  /** The tool of that name, if the agent has it. */
  tool(name: string): Tool | undefined;
}
