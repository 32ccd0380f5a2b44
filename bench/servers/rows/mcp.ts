/**
 * MCP's rows of `npm run bench:servers`: one call of the one-trip agent through createMcpHandler
 * (served by Node on loopback, the official SDK's client over Streamable HTTP, one session), and
 * 100 concurrent calls on the one handler (100 clients, one call each) with no error.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler } from "../../../src/index.js";
import type { ServerRows } from "../rows.js";

const CONCURRENT_CALLS = 100;

async function connect(url: URL): Promise<McpClient> {
  const client = new McpClient({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** The MCP rows. */
export const mcpRows: ServerRows = {
  protocol: "MCP",
  async start({ client, agent, taskQueue }) {
    const handler = createMcpHandler({ agents: [agent], client, taskQueue, authorize: () => ({ by: "bench" }) });
    const server = await new Promise<ReturnType<typeof serve>>((done) => {
      const started = serve({ fetch: handler, port: 0, hostname: "127.0.0.1" }, () => done(started));
    });
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const one = await connect(url);
    // A call's client waits up to 10 minutes (the SDK's default is 60 s): an error here is the server's, not a busy machine's.
    const call = async (mcp: McpClient, message: string) => {
      const result = (await mcp.callTool({ name: agent.name, arguments: { message } }, undefined, {
        timeout: 600_000,
      })) as CallToolResult;
      if (result.isError) throw new Error(`the MCP call failed: ${JSON.stringify(result.content)}`);
    };
    return {
      subjects: [{ label: "MCP tools/call (Streamable HTTP)", call: (round) => call(one, `Hello #${round}`) }],
      async checks() {
        const clients = await Promise.all(Array.from({ length: CONCURRENT_CALLS }, () => connect(url)));
        const started = performance.now();
        const outcomes = await Promise.allSettled(clients.map((mcp, i) => call(mcp, `Concurrent #${i}`)));
        const ms = performance.now() - started;
        await Promise.all(clients.map((mcp) => mcp.close()));
        const errors = outcomes.filter((o) => o.status === "rejected");
        for (const error of errors.slice(0, 3)) console.error((error as PromiseRejectedResult).reason);
        return [
          {
            goal: `${CONCURRENT_CALLS} concurrent MCP calls on one handler: 0 errors`,
            figure: `${errors.length} errors, all answered in ${Math.round(ms)} ms`,
            status: errors.length === 0 ? "met" : "not met",
          },
        ];
      },
      async close() {
        await one.close();
        server.close();
        if ("closeAllConnections" in server) server.closeAllConnections();
      },
    };
  },
};
