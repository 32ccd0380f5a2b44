/** A chat handler served over real HTTP on loopback, routed as a Next.js app routes it: POST {api}, GET and DELETE {api}/{chatId}/stream. */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ChatHandler } from "../../src/index.js";

/** The server's base URL (`http://127.0.0.1:<port>`; the routes are under /api/chat) and how to stop it. */
export interface ChatHttpServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler`; a method it has no handler for is a 405. */
export async function serveChat(handler: ChatHandler): Promise<ChatHttpServer> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve(
      {
        fetch: (request) =>
          request.method in handler
            ? handler[request.method as keyof ChatHandler](request)
            : Response.json({ error: `no ${request.method} route` }, { status: 405 }),
        port: 0,
        hostname: "127.0.0.1",
      },
      () => resolve(started),
    );
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
