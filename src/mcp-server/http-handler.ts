/**
 * MCP's Streamable HTTP transport as one fetch handler (`POST`, `GET` and `DELETE` on one path):
 * the SDK's web-standard transport, one per MCP session, each with its own server. Before the
 * SDK sees a request: where it comes from (the library's Origin rule, for every method: MCP's
 * DNS-rebinding guidance), who asks (`authorize`, 401 when refused), whose session it is (another
 * caller's is 404, as one that does not exist), and whether its body parses (a JSON-RPC parse
 * error, never a 500).
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { getDefaultClient } from "../client/connection.js";
import { defined } from "../core/defined.js";
import { refusedSource } from "../http/index.js";
import { createAgentServer } from "./agent-server.js";
import type { McpHandlerOptions } from "./options.js";

/** A POST body larger than this is refused (413), as the SDK's own transport does. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_SESSIONS = 1_000;

/** A JSON-RPC error as the HTTP answer (no request id: it was not read, or is not answered). */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  by: string;
}

/** The fetch handler serving `options.agents` over Streamable HTTP. */
export function mcpHttpHandler(options: McpHandlerOptions): (request: Request) => Promise<Response> {
  const clientOf = async (): Promise<Client> =>
    typeof options.client === "function" ? options.client() : (options.client ?? getDefaultClient());
  const sessions = new Map<string, OpenSession>();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;

  /** A new session's transport and server, connected; the session is kept once `initialize` gives it an id. */
  async function openSession(by: string): Promise<WebStandardStreamableHTTPServerTransport> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (sessions.size >= maxSessions) {
          const [oldest] = sessions.values();
          void oldest?.transport.close();
        }
        sessions.set(id, { transport, by });
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    const server = createAgentServer({
      options,
      client: clientOf,
      callerOf: (extra) => extra.authInfo?.extra?.by as string,
      sessionId: "",
    });
    await server.connect(transport);
    const closed = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      closed?.();
    };
    return transport;
  }

  /** The body of a POST, parsed; a Response when it is too large or does not parse. */
  async function bodyOf(request: Request): Promise<unknown> {
    if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES)
      return rpcError(413, ErrorCode.InvalidRequest, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    const text = await request.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES)
      return rpcError(413, ErrorCode.InvalidRequest, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return rpcError(400, ErrorCode.ParseError, "Parse error: the body is not JSON.");
    }
  }

  async function handle(request: Request): Promise<Response> {
    const method = request.method.toUpperCase();
    const header = (name: string) => request.headers.get(name);
    // Every method is checked for its origin (a GET opens the session's stream): GET and DELETE as state-changing, without a body.
    const refused = refusedSource(
      { method: method === "POST" ? method : "DELETE", header },
      defined({ allowedOrigins: options.allowedOrigins, requireJson: method === "POST" ? true : undefined }),
    );
    if (refused) return rpcError(403, ErrorCode.InvalidRequest, refused);
    const caller = await options.authorize(request);
    if (!caller) return rpcError(401, ErrorCode.InvalidRequest, "Unauthorized.", { "WWW-Authenticate": "Bearer" });
    const authInfo = { token: "", clientId: caller.by, scopes: [], extra: { by: caller.by } };
    const body = method === "POST" ? await bodyOf(request) : undefined;
    if (body instanceof Response) return body;
    const sessionId = header("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session || session.by !== caller.by) return rpcError(404, -32001, "Session not found.");
      return session.transport.handleRequest(request, { authInfo, ...(method === "POST" ? { parsedBody: body } : {}) });
    }
    const initializing =
      method === "POST" && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));
    if (!initializing)
      return rpcError(
        400,
        ErrorCode.InvalidRequest,
        "Bad request: initialize first, then send the Mcp-Session-Id header it gives.",
      );
    return (await openSession(caller.by)).handleRequest(request, { authInfo, parsedBody: body });
  }

  return async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      console.error(`durable-agent mcp: ${request.method} ${new URL(request.url).pathname}:`, error);
      return rpcError(500, ErrorCode.InternalError, "The MCP server failed to answer; its log has the details.");
    }
  };
}
