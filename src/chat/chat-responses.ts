/**
 * The chat routes' answers that are not an answer's stream: JSON errors with the status a typed
 * error calls for, and, where `useChat` expects a stream, the UI message stream's error part.
 */
import {
  ChatRequestError,
  DurableAgentError,
  SessionBusyError,
  SessionEndedError,
  SessionOwnerError,
  TemporalConnectionError,
} from "../errors.js";

/** gRPC status codes that mean the server could not be reached (UNAVAILABLE, DEADLINE_EXCEEDED). */
const UNREACHABLE_CODES = new Set([14, 4]);

/** The error as this library's typed error when it says Temporal is unreachable (a gRPC UNAVAILABLE anywhere in its causes); else itself. */
export function typedTemporalError(error: unknown, address: string): unknown {
  if (TemporalConnectionError.isInstance(error)) return error;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (UNREACHABLE_CODES.has((e as { code?: unknown }).code as number)) return new TemporalConnectionError(address, e);
  return error;
}

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

/** An error's name and message; an error of no known kind keeps its message out of the answer. */
function errorData(error: unknown): { name: string; message: string } {
  if (DurableAgentError.isInstance(error)) return { name: error.name, message: error.message };
  return { name: "Error", message: "The chat request failed; the server's log says why." };
}
