/** A chat's routes driven the way the browser does: the AI SDK's own DefaultChatTransport (its parser checks each chunk against uiMessageChunkSchema) and readUIMessageStream. */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { ChatHandler } from "../../src/index.js";

export const API = "http://chat.test/api/chat";

/** A transport whose requests reach the handler's POST / GET / DELETE, as a Next.js app routes them; `headers` name the caller. */
export function transportFor(handler: ChatHandler, headers: Record<string, string> = {}) {
  return new DefaultChatTransport<UIMessage>({
    api: API,
    headers,
    fetch: (async (url: string | URL | Request, init?: RequestInit) => {
      const request = new Request(new URL(String(url), API), init);
      return handler[request.method as "POST" | "GET" | "DELETE"](request);
    }) as typeof fetch,
  });
}

/** A request to the handler, as from a browser with the user's cookie. */
export function chatRequest(path: string, user: string | undefined, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  if (user) headers.set("x-user", user);
  if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json"); // as useChat sends it
  return new Request(new URL(path, API + "/"), { ...init, headers });
}

/** Reads a chunk stream to its end with readUIMessageStream: the chunks, and the message as useChat would last show it. */
export async function readAnswer(
  stream: ReadableStream<UIMessageChunk>,
  message?: UIMessage,
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage | undefined; error?: Error }> {
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collected = (async () => {
    const reader = forChunks.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  })();
  let last: UIMessage | undefined;
  let error: Error | undefined;
  for await (const shown of readUIMessageStream({ stream: forMessage, message, onError: (e) => (error = e as Error) }))
    last = shown;
  await collected;
  return { chunks, message: last, ...(error ? { error } : {}) };
}

/** useChat's body for a new user message. */
export function userMessage(text: string, id = `client-${Math.random()}`): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}
