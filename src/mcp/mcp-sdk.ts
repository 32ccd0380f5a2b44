/** The MCP SDK's client side, which `McpConnection` loads on its first connection: defining an agent (or importing the root) never loads it. */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
