/** The `mcp.list` activity: the MCP tools a run will use, listed on the worker once at the run's start. */
import { Context } from "@temporalio/activity";
import type { McpListInput } from "../core/activity-types.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import { AgentOptionsError, McpServerError } from "../errors.js";
import { lookupAgent, type AgentRegistry } from "./registry.js";
import { toFailure } from "../core/typed-failures.js";
import type { McpToolset } from "../mcp/mcp-toolset.js";

/**
 * How long one `mcp.list` attempt keeps trying a server it cannot reach (refused or lost
 * connections) before it fails and Temporal retries it (3 attempts): a server restarting for a few
 * seconds must not fail the runs that start meanwhile, since a failed listing fails the run.
 */
export const MCP_LIST_PATIENCE_MS = 5_000;

async function listPatiently(toolset: McpToolset): Promise<McpToolDefinition[]> {
  const deadline = Date.now() + MCP_LIST_PATIENCE_MS;
  for (;;) {
    try {
      return await toolset.listTools();
    } catch (error) {
      if (!McpServerError.isInstance(error) || !error.retryable || Date.now() + 500 > deadline) throw error;
      await Context.current().sleep(500);
    }
  }
}

/**
 * Lists the tools of every MCP toolset of the agent. A name that clashes with another tool of the
 * agent, or a `requiredTools` entry that names no tool, fails the run with `AgentOptionsError`; a
 * server that cannot be reached (for `MCP_LIST_PATIENCE_MS` per attempt) fails it with
 * `McpServerError` once Temporal's retries are used up.
 */
export function createMcpList(registry: AgentRegistry) {
  return async function mcpList({ agent: name }: McpListInput): Promise<McpToolDefinition[]> {
    const agent = lookupAgent(registry, name);
    try {
      const tools = (await Promise.all(agent.mcpToolsets.map(listPatiently))).flat();
      checkNames(
        agent.tools.map((tool) => tool.name),
        tools,
        agent.options.actWhenAsked?.requiredTools ?? [],
      );
      return tools;
    } catch (error) {
      if (McpServerError.isInstance(error)) throw toFailure(error, { nonRetryable: !error.retryable });
      if (AgentOptionsError.isInstance(error)) throw toFailure(error);
      throw error;
    }
  };
}

function checkNames(agentTools: string[], mcpTools: McpToolDefinition[], requiredTools: string[]): void {
  const owners = new Map<string, string>(agentTools.map((name) => [name, `the agent's tool "${name}" (ai.tool)`]));
  for (const tool of mcpTools) {
    const other = owners.get(tool.name);
    const self = `tool "${tool.tool}" of MCP server "${tool.server}"`;
    if (other)
      throw new AgentOptionsError(
        "tools",
        `${self} clashes with ${other}: both are named "${tool.name}". Use prefix: true on ai.mcp({ name: ` +
          `"${tool.server}" }) to expose it as "${tool.server}__${tool.tool}", or leave it out with its ` +
          `\`tools\` option`,
      );
    owners.set(tool.name, self);
  }
  for (const name of requiredTools) {
    if (!owners.has(name))
      throw new AgentOptionsError(
        "actWhenAsked.requiredTools",
        `names "${name}", which is not one of the agent's tools (${[...owners.keys()].join(", ") || "none"})`,
      );
  }
}
