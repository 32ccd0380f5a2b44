/**
 * Worker-side: one streamed Chat Completions call, and the `openai` client it goes through. The
 * client's `fetch` checks that a 2xx answer is an event stream before the SDK reads it, so a 200
 * that is not one (an HTML page because `baseURL` lacks `/v1`, a proxy's login page, plain text,
 * a whole JSON completion) fails naming what came back instead of "request ended without
 * sending any chunks".
 */
import OpenAI, { type ClientOptions } from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { namedErrorGuard } from "../core/error-guard.js";

/** Characters of an unexpected body quoted in the error. */
const BODY_START_CHARS = 200;

/** A 2xx answer to a streamed request that is not an event stream; the model call turns it into a `ModelApiError`. */
export class NotAnEventStreamError extends Error {
  override name = "NotAnEventStreamError";
  /** True for a `NotAnEventStreamError`, by its literal name (kept by minifiers). */
  static isInstance = namedErrorGuard<NotAnEventStreamError>("NotAnEventStreamError");
  constructor(
    readonly status: number,
    readonly contentType: string | null,
    /** The first ~200 characters of the body. */
    readonly bodyStart: string,
    /** The request URL without credentials or query. */
    readonly url: string,
  ) {
    super(
      `the server answered ${status} with ${contentType ? `content-type ${contentType}` : "no content-type"}, not a chat completion stream ` +
        `(text/event-stream). It sent: ${JSON.stringify(bodyStart)}. Check the model's baseURL (the request went to ${url}): ` +
        `an OpenAI-compatible API usually ends in /v1, e.g. http://localhost:8080/v1.`,
    );
  }
}

/** An `openai` client for streamed calls: the SDK's own retries off (Temporal retries), and a `fetch` that checks for an event stream. */
export function createStreamingClient(options: ClientOptions): OpenAI {
  return new OpenAI({ maxRetries: 0, ...options, fetch: eventStreamFetch(options.fetch ?? globalThis.fetch) });
}

/** Wraps `fetch`: a 2xx answer without `text/event-stream` gets a body that fails with `NotAnEventStreamError`. */
function eventStreamFetch(fetchImpl: NonNullable<ClientOptions["fetch"]>): NonNullable<ClientOptions["fetch"]> {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const contentType = response.headers.get("content-type") || null;
    if (!response.ok || contentType?.toLowerCase().includes("text/event-stream")) return response;
    const url = typeof input === "string" || input instanceof URL ? String(input) : input.url;
    const error = new NotAnEventStreamError(
      response.status,
      contentType,
      await readBodyStart(response),
      displayURL(url),
    );
    return new Response(new ReadableStream({ start: (controller) => controller.error(error) }), {
      status: response.status,
      headers: response.headers,
    });
  };
}

/** What `streamChatCompletion` needs besides the request. */
export interface StreamChatOptions {
  /** Aborts the call (the activity's cancellation). */
  signal?: AbortSignal;
  /** Called with each text delta as it arrives. */
  onTextDelta?: (text: string) => void;
  /** Called when a chunk reports usage (the last chunk, with `stream_options.include_usage`), even if the stream breaks after it. */
  onUsage?: (usage: CompletionUsage) => void;
}

/** Sends the request streamed and resolves to the whole completion; rejects with what the `openai` client raised. */
export async function streamChatCompletion(
  client: OpenAI,
  request: Omit<ChatCompletionCreateParamsStreaming, "stream">,
  { signal, onTextDelta, onUsage }: StreamChatOptions = {},
): Promise<ChatCompletion> {
  const stream = client.chat.completions.stream(request, { signal });
  if (onTextDelta) stream.on("content.delta", ({ delta }) => onTextDelta(delta));
  if (onUsage) stream.on("chunk", (chunk) => void (chunk.usage && onUsage(chunk.usage)));
  return stream.finalChatCompletion();
}

/** The first characters of the body; the rest is not read. */
async function readBodyStart(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < BODY_START_CHARS) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body that breaks while we quote it: quote what arrived.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.length > BODY_START_CHARS ? `${text.slice(0, BODY_START_CHARS)}…` : text;
}

/** A URL without credentials or query, fit for an error message. */
function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
