/**
 * The chat routes' answers that are not an answer's stream: JSON errors with the status a typed
 * error calls for, and, where `useChat` expects a stream, the UI message stream's error part. What
 * reaches the browser is meant for a person; addresses and hints for developers go to the
 * server's log.
 */
import {
  ChatRequestError,
  DurableAgentError,
  SessionBusyError,
  SessionEndedError,
  SessionOwnerError,
  TemporalConnectionError,
  UnknownAgentError,
} from "../errors.js";

/** What a person is told while the chat cannot reach Temporal. */
export const CHAT_UNAVAILABLE = "The chat service is unavailable. Try again in a moment.";

/** The HTTP status for an error a chat route ends with. */
export function statusOf(error: unknown): number {
  if (ChatRequestError.isInstance(error)) return 400;
  if (SessionOwnerError.isInstance(error)) return 404;
  if (SessionBusyError.isInstance(error)) return 409;
  if (SessionEndedError.isInstance(error)) return 410;
  if (TemporalConnectionError.isInstance(error)) return 503;
  return 500;
}

/** The error as `{ error: { name, message } }`. */
export function jsonError(status: number, error: unknown): Response {
  return Response.json({ error: errorData(error) }, { status });
}

/** The answer to a refused caller, another user's chat, and a chat that does not exist alike: it says nothing of the chat. */
export function notFound(): Response {
  return Response.json({ error: { name: "NotFound", message: "No such chat." } }, { status: 404 });
}

/** The answer to a request from another origin, or with a body that is not JSON (`reason` says which). */
export function forbidden(reason: string): Response {
  return Response.json({ error: { name: "Forbidden", message: reason } }, { status: 403 });
}

/** A UI message stream holding only the error part, where `useChat` expects a stream. */
export function streamError(status: number, error: unknown): Response {
  const chunk = { type: "error", errorText: errorData(error).message };
  return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, {
    status,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-vercel-ai-ui-message-stream": "v1",
    },
  });
}

/**
 * A failed answer where `useChat` expects a stream but the status is an error: `useChat` (and
 * `DurableChatTransport`) show a failed response's body as the error's message, so the body is
 * that message as plain text.
 */
export function textError(status: number, error: unknown): Response {
  return new Response(errorData(error).message, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" },
  });
}

/** An error's name and a message for a person; an error of no known kind keeps its message out of the answer. */
function errorData(error: unknown): { name: string; message: string } {
  if (TemporalConnectionError.isInstance(error)) return { name: error.name, message: CHAT_UNAVAILABLE };
  if (UnknownAgentError.isInstance(error))
    return { name: error.name, message: `No worker serves the agent "${error.agent}", so this chat cannot answer.` };
  if (DurableAgentError.isInstance(error)) return { name: error.name, message: error.message };
  return { name: "Error", message: "The chat request failed; the server's log says why." };
}
