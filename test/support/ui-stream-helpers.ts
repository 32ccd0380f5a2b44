/** Reads UI message streams as a client no one here wrote does: the AI SDK's own parser, chunk schema and message reader. */
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";

/** What a client read of a UI message stream response: each chunk (checked against the AI SDK's schema) with its SSE id. */
export interface UIStreamRead {
  chunks: UIMessageChunk[];
  ids: (string | undefined)[];
  /** True when the stream ended with `data: [DONE]` (not cut by `until`). */
  done: boolean;
}

/**
 * Reads a response body with `parseJsonEventStream` + `uiMessageChunkSchema` (as `DefaultChatTransport`
 * does), and the SSE ids beside it; stops (cancelling the response, as a dropped connection does)
 * after the first chunk `until` accepts.
 */
export async function readUIStream(
  response: Response,
  until?: (chunk: UIMessageChunk) => boolean,
): Promise<UIStreamRead> {
  const [forChunks, forIds] = response.body!.tee();
  const parsed = parseJsonEventStream({ stream: forChunks, schema: uiMessageChunkSchema }).getReader();
  const events = forIds.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const read: UIStreamRead = { chunks: [], ids: [], done: false };
  for (;;) {
    const { value, done } = await parsed.read();
    if (done) break;
    if (!value.success) throw value.error;
    read.chunks.push(value.value);
    read.ids.push((await events.read()).value?.id);
    if (until?.(value.value)) {
      await Promise.all([parsed.cancel(), events.cancel()]);
      return read;
    }
  }
  read.done = (await events.read()).value?.data === "[DONE]";
  return read;
}

/** The assistant message the AI SDK's `readUIMessageStream` builds from chunks (continuing `message`, if given). */
export async function messageOf(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, message, terminateOnError: true })) last = snapshot;
  if (!last) throw new Error("the stream built no message");
  return structuredClone(last);
}

/** The text parts' texts of a message, in order. */
export const textsOf = (message: UIMessage): string[] =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : []));

/** The chunk types in order, with runs of text deltas shown once. */
export const chunkTypes = (chunks: UIMessageChunk[]): string[] =>
  chunks.map((c) => c.type).filter((type, i, all) => type !== "text-delta" || all[i - 1] !== "text-delta");
