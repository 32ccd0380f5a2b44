/**
 * The run's MCP tool list, fixed once: listed on the worker by the `mcp.list` activity at the
 * run's start (so it is recorded in the history), carried across continue-as-new, and read by the
 * model and tool activities through the `mcp-tools` query. Workflow-safe.
 */
import { setHandler } from "@temporalio/workflow";
import { ACTIVITY } from "../core/constants.js";
import type { AgentSpec } from "../core/agent-spec.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { ActivityProxies } from "./activity-proxies.js";
import { mcpToolsQuery } from "./definitions.js";
import { unwrapFailure } from "./activity-proxies.js";

/** The run's MCP tool list, answered by the `mcp-tools` query from the run's first moment (empty until listed). */
export class McpToolList {
  #list: McpToolDefinition[];

  constructor(private readonly carried: McpToolDefinition[] | undefined) {
    this.#list = carried ?? [];
    setHandler(mcpToolsQuery, () => this.#list);
  }

  /** Lists the agent's MCP tools unless the run carries its list already; an agent without MCP toolsets lists nothing. */
  async fix(spec: AgentSpec, tools: ActivityProxies): Promise<McpToolDefinition[]> {
    if (!this.carried && spec.mcpServers?.length) {
      const servers = spec.mcpServers;
      this.#list = await unwrapFailure(() =>
        tools[ACTIVITY.mcpList].executeWithOptions({ summary: `mcp list tools (${servers.join(", ")})` }, [
          { agent: spec.name },
        ]),
      );
    }
    return this.#list;
  }
}

/** What a run carries of its MCP list across continue-as-new (nothing for an agent without MCP tools). */
export function carryMcpTools(list: McpToolDefinition[]): { mcpTools?: McpToolDefinition[] } {
  return list.length ? { mcpTools: list } : {};
}
