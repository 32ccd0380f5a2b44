/** Closes the MCP connections a worker opened (stopping its stdio servers) when the worker stops. */
import type { WorkerPlugin } from "@temporalio/worker";
import type { McpToolset } from "./mcp-toolset.js";

/**
 * A worker plugin that, once the worker has shut down, closes the connections of the agents' MCP
 * toolsets: a stdio server started for the worker stops with it. A toolset used again later (by
 * another worker of the process) connects again on its next call.
 */
export function mcpConnectionsPlugin(agents: readonly { readonly mcpToolsets: readonly McpToolset[] }[]): WorkerPlugin {
  const toolsets = [...new Set(agents.flatMap((agent) => agent.mcpToolsets))];
  return {
    name: "durable-agent.mcp-connections",
    async runWorker(worker, next) {
      try {
        await next(worker);
      } finally {
        await Promise.all(toolsets.map((toolset) => toolset.close()));
      }
    },
  };
}
