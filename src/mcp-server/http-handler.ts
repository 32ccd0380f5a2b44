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
import { hasOpenSession, initializeAgain } from "./resumed-sessions.js";
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

  /** Sessions being taken up again, by caller and id: concurrent requests of one share its server. */
  const resuming = new Map<string, Promise<OpenSession | undefined>>();

  /** A new session's transport and server, connected; the session is kept once `initialize` gives it an id (`id`, for one taken up again). */
  async function openSession(by: string, id?: string): Promise<WebStandardStreamableHTTPServerTransport> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id ?? randomUUID(),
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

  /**
   * A session this handler does not hold, taken up again when it is `by`'s (with `session: true`, see
   * resumed-sessions.ts): a new server for it, initialized as the client had done before the restart.
   */
  async function resumedSession(id: string, by: string, request: Request): Promise<OpenSession | undefined> {
    if (!options.session) return undefined;
    const key = JSON.stringify([by, id]);
    const taking = resuming.get(key);
    if (taking) return taking;
    const taken = (async () => {
      if (!(await hasOpenSession(await clientOf(), options.agents, by, id))) return undefined;
      const transport = await openSession(by, id);
      const init = initializeAgain(request);
      await (await transport.handleRequest(init.request, { parsedBody: init.body })).text();
      return sessions.get(id);
    })();
    resuming.set(key, taken);
    return taken.finally(() => resuming.delete(key));
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
      const session = sessions.get(sessionId) ?? (await resumedSession(sessionId, caller.by, request));
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
