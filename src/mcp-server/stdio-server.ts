/** The MCP server on stdin and stdout, for clients that launch a command (Claude Desktop): one caller, one session per process. */
import { randomUUID } from "node:crypto";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createAgentServer } from "./agent-server.js";
import type { McpStdioOptions } from "./options.js";

/** Serves the agents over stdio as `by` until stdin closes; resolves then. Nothing but MCP goes to stdout. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const server = createAgentServer({
    options,
    client: () => Promise.resolve(options.client),
    callerOf: () => options.by,
    sessionId: `stdio-${randomUUID()}`,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = ((close) => () => (close?.(), resolve()))(server.onclose);
  });
  await server.connect(transport);
  process.stdin.once("end", () => void server.close());
  await closed;
}
