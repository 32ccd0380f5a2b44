import type { UIMessageChunk } from "ai";
import type { ChatState, ParkedAnswer } from "./chat-state.js";
import { LAST_CHUNKS } from "./last-chunks.js";
import { ReplayFilter } from "./replay-filter.js";

/**
 * Reads a watcher's resume against what the chat's consumer already has, and returns the answer to
 * hand over when it holds something new; `undefined` when it only replays the known message (as a
 * resume does while a call waits for approval) or is cut first.
 *
 * An answer with another message id is new from its `start`. One that goes on with the ledger's
 * message (the answer after an approval made elsewhere) is handed over as the message so far and
 * then what is new: `useChat` rebuilds the message from the resume's `start`, so sending only the
 * new chunks would lose its earlier parts.
 */
export async function readNews(
  chat: ChatState,
  stream: ReadableStream<UIMessageChunk>,
): Promise<ParkedAnswer | undefined> {
  const reader = stream.getReader();
  const read: UIMessageChunk[] = [];
  let filter: ReplayFilter | undefined;
  for (;;) {
    let result: ReadableStreamReadResult<UIMessageChunk>;
    try {
      result = await reader.read();
    } catch {
      return undefined;
    }
    if (result.done) return undefined;
    const chunk = result.value;
    read.push(chunk);
    if (!filter) {
      if (chunk.type !== "start" || chunk.messageId === undefined || chunk.messageId !== chat.messageId)
        return { prefix: [chunk], known: read, rest: rest(reader) };
      filter = new ReplayFilter(chat.ledger);
    }
    const fresh = filter.next(chunk);
    if (fresh) {
      const prefix = [...chat.ledger.filter((c) => !LAST_CHUNKS.has(c.type)), fresh];
      return { prefix, known: read, rest: rest(reader) };
    }
  }
}

/** The rest of a reader's stream, as a stream. */
function rest(reader: ReadableStreamDefaultReader<UIMessageChunk>): ReadableStream<UIMessageChunk> {
  return new ReadableStream<UIMessageChunk>({
    pull: async (controller) => {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
