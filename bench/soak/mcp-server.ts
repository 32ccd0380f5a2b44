/**
 * The soak's MCP server, a process of its own (the fault driver SIGKILLs it and starts it again on
 * the same port), built with the official SDK over Streamable HTTP, stateless (a new server per
 * request, so a restarted process serves workers' existing clients). Its one tool, `book_class`,
 * writes a ledger row keyed by the call's idempotency key (`_meta["durable-agent/idempotencyKey"]`).
 *
 * Environment: SOAK_MCP_PORT, SOAK_LEDGER_URL.
 */
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { MCP_IDEMPOTENCY_KEY } from "../../src/index.js";
import { Ledger } from "./ledger.js";

const ledger = new Ledger(process.env.SOAK_LEDGER_URL!);

function gymServer(): McpServer {
  const server = new McpServer({ name: "soak-gym", version: "1.0.0" });
  server.registerTool(
    "book_class",
    { description: "Book a class", inputSchema: { note: z.string().min(1) } },
    async ({ note }, extra) => {
      const key = extra._meta?.[MCP_IDEMPOTENCY_KEY];
      if (typeof key !== "string")
        return {
          content: [{ type: "text", text: "no idempotency key in _meta: refusing to book twice by accident" }],
          isError: true,
        };
      const execution = await ledger.record(key, "mcp", key.slice(0, key.indexOf("/trip-")));
      return { content: [{ type: "text", text: `booked ${note} (execution ${execution})` }] };
    },
  );
  return server;
}

const http = createServer(async (req, res) => {
  if (!req.url?.startsWith("/mcp")) return void res.writeHead(404).end();
  if (req.method !== "POST") return void res.writeHead(405).end();
  const server = gymServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
http.listen(Number(process.env.SOAK_MCP_PORT), "127.0.0.1", () =>
  console.log(`soak mcp server: listening on ${process.env.SOAK_MCP_PORT}`),
);
