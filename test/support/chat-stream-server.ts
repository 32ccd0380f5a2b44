/**
 * A scripted chat server on loopback for `DurableChatTransport`'s tests: `createChatHandler`'s
 * routes (`POST {api}`, `GET` / `DELETE {api}/{chatId}/stream`) over node:http, each answered by
 * a route the test sets. Streams are written by the AI SDK's own `createUIMessageStreamResponse`
 * (`data: <json>\n\n`, `x-vercel-ai-ui-message-stream: v1`), and can be cut mid-answer by
 * destroying the socket. `refuse()` stops listening, so connections are refused, and `reopen()`
 * listens again on the same port.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  body?: unknown;
}

type Route = (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void> | void;

/** The server, its routes (set them per test), and what it has seen. */
export interface ChatStreamServer {
  /** The `api` to give the transport: `http://127.0.0.1:{port}/api/chat`. */
  api: string;
  routes: { post?: Route; resume?: Route; messages?: Route; stop?: Route };
  requests: SeenRequest[];
  /** Resolves at the next request that `match` accepts. */
  next(match: (request: SeenRequest) => boolean): Promise<SeenRequest>;
  refuse(): Promise<void>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

/** Writes `chunks` as a UI message stream and ends it; or, with `cut`, writes them, waits for `cut`, and destroys the socket. */
export async function writeChunks(
  response: ServerResponse,
  chunks: readonly UIMessageChunk[],
  cut?: Promise<void>,
): Promise<void> {
  let push!: ReadableStreamDefaultController<UIMessageChunk>;
  const stream = new ReadableStream<UIMessageChunk>({ start: (controller) => void (push = controller) });
  const web = createUIMessageStreamResponse({ stream });
  const headers: Record<string, string> = {};
  web.headers.forEach((value, name) => (headers[name] = value));
  response.writeHead(web.status, headers);
  response.flushHeaders();
  for (const chunk of chunks) push.enqueue(chunk);
  if (!cut) push.close();
  const reader = web.body!.getReader();
  let written = 0;
  for (;;) {
    if (cut && written === chunks.length) {
      await cut;
      response.socket?.destroy();
      return;
    }
    const { done, value } = await reader.read();
    if (done) break;
    await new Promise<void>((resolve, reject) => response.write(value, (error) => (error ? reject(error) : resolve())));
    written += new TextDecoder().decode(value).split("data: ").length - 1;
  }
  response.end();
}

export async function startChatStreamServer(): Promise<ChatStreamServer> {
  const requests: SeenRequest[] = [];
  const waiters: { match: (request: SeenRequest) => boolean; resolve: (request: SeenRequest) => void }[] = [];
  const routes: ChatStreamServer["routes"] = {};
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await new Promise<string>((resolve) => {
      let data = "";
      request.on("data", (piece: Buffer) => (data += piece.toString()));
      request.on("end", () => resolve(data));
    });
    const url = new URL(request.url ?? "/", "http://localhost");
    const seen: SeenRequest = { method: request.method ?? "", path: url.pathname + url.search };
    if (text) seen.body = JSON.parse(text);
    requests.push(seen);
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(seen)) waiter.resolve(seen);
      else waiters.push(waiter);
    }
    const route =
      request.method === "POST" && url.pathname === "/api/chat"
        ? routes.post
        : request.method === "GET" && url.searchParams.has("messages")
          ? routes.messages
          : request.method === "GET"
            ? routes.resume
            : request.method === "DELETE"
              ? (routes.stop ?? ((_, res) => void res.writeHead(204).end()))
              : undefined;
    if (!route) return void response.writeHead(404).end("no route");
    await route(request, response, seen.body);
  };
  const sockets = new Set<Socket>();
  let server: Server = listen();
  function listen(port = 0): Server {
    const s = createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500).end(String(error));
      });
    });
    s.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    s.listen(port, "127.0.0.1");
    return s;
  }
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return {
    api: `http://127.0.0.1:${port}/api/chat`,
    routes,
    requests,
    next: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
    refuse: stop,
    reopen: async () => {
      server = listen(port);
      await new Promise((resolve) => server.once("listening", resolve));
    },
    close: stop,
  };
}
