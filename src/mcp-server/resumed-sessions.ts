/**
 * MCP sessions taken up again by a handler that did not open them (the server restarted), with
 * `session: true`: there an MCP session is the caller's durable sessions of the agents, which
 * Temporal holds, so a request naming a session id this handler does not know is served when
 * that caller has an open durable session under it. A retried request finds its message; a client
 * that reconnects with its session id (the SDK's `sessionId` option) goes on with its conversation.
 */
import type { Client } from "@temporalio/client";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { AgentSession } from "../client/session.js";
import { callSessionId } from "./call-ids.js";

/** The shape of the session ids this handler gives (`randomUUID()`): anything else is not one of ours. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `by` has an open durable session of one of the agents under MCP session `sessionId`. */
export async function hasOpenSession(
  client: Client,
  agents: readonly AgentDefinition[],
  by: string,
  sessionId: string,
): Promise<boolean> {
  if (!SESSION_ID.test(sessionId)) return false;
  const described = await Promise.all(
    agents.map((agent) => new AgentSession(agent.name, callSessionId(by, sessionId), { client }).describe()),
  );
  return described.some((session) => session?.open === true && session.owner === by);
}

/**
 * The `initialize` a taken-up session's new server is given in place of the client's, which went to
 * the server before the restart: the client's protocol version (from its header); no client
 * capabilities, as they were not kept (so no elicitation: an approval waits as for a client without it).
 */
export function initializeAgain(request: Request): { request: Request; body: unknown } {
  const body = {
    jsonrpc: "2.0",
    id: "durable-agent-resumed-session",
    method: "initialize",
    params: {
      protocolVersion: request.headers.get("mcp-protocol-version") ?? LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "resumed-session", version: "0" },
    },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  return { request: new Request(request.url, { method: "POST", headers, body: JSON.stringify(body) }), body };
}
