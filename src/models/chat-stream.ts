/**
 * Worker-side: one streamed Chat Completions call. The response is checked to be a stream before
 * it is read, so a 200 that is not one (an HTML page because `baseURL` lacks `/v1`, a proxy's
 * login page, plain text, a whole JSON completion) fails naming what came back.
 */
import OpenAI from "openai";
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream";
import type { ChatCompletion, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { ModelApiError } from "../errors.js";

/** Characters of an unexpected body quoted in the error. */
const BODY_START_CHARS = 200;

/** What `streamChatCompletion` needs besides the request. */
export interface StreamChatOptions {
  /** For error messages. */
  modelId: string;
  /** Aborts the call (the activity's cancellation). */
  signal?: AbortSignal;
  /** Called with each text delta as it arrives. */
  onTextDelta?: (text: string) => void;
}

/** Sends the request streamed and resolves to the whole completion; rejects with what the `openai` client or the check raised. */
export async function streamChatCompletion(
  client: OpenAI,
  request: Omit<ChatCompletionCreateParamsStreaming, "stream">,
  { modelId, signal, onTextDelta }: StreamChatOptions,
): Promise<ChatCompletion> {
  const { data, response } = await client.chat.completions.create({ ...request, stream: true }, { signal }).withResponse();
  const contentType = response.headers.get("content-type") || null;
  if (!contentType?.toLowerCase().includes("text/event-stream")) {
    const bodyStart = await readBodyStart(response);
    throw notAStream(modelId, client.baseURL, response.status, contentType, bodyStart);
  }
  const stream = ChatCompletionStream.fromReadableStream(data.toReadableStream());
  if (onTextDelta) stream.on("content.delta", ({ delta }) => onTextDelta(delta));
  const abort = () => stream.abort();
  signal?.addEventListener("abort", abort, { once: true });
  try {
    return await stream.finalChatCompletion();
  } catch (error) {
    // An abort ends the body quietly; report it as the abort it was, not as a short stream.
    throw signal?.aborted ? new OpenAI.APIUserAbortError() : error;
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/** The typed error for a 2xx answer to a streamed request that is not an event stream. */
function notAStream(modelId: string, baseURL: string, status: number, contentType: string | null, bodyStart: string): ModelApiError {
  return new ModelApiError(
    `Model "${modelId}": the server answered ${status} with ${contentType ? `content-type ${contentType}` : "no content-type"}, ` +
      `not a chat completion stream (text/event-stream). It sent: ${JSON.stringify(bodyStart)}. ` +
      `Check the model's baseURL (${displayURL(baseURL)}): an OpenAI-compatible API usually ends in /v1, e.g. http://localhost:8080/v1.`,
    status,
    modelId,
    { contentType, bodyStart },
  );
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

/** The base URL without credentials or query, fit for an error message. */
function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`;
  } catch {
    return baseURL;
  }
}
