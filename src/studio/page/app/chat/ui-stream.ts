/**
 * Reads the AI SDK's UI message stream (what the chat handler answers a POST with: server-sent
 * events, one JSON chunk each, ending with `[DONE]`) without the AI SDK: the page stays small.
 */

/** The chunks the chat panel shows (others are passed on too, and ignored). */
export type UiChunk =
  | { type: "start"; messageId?: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "error"; errorText: string }
  | { type: "finish"; finishReason?: string }
  | { type: "other" };

/** Calls `onChunk` for each chunk of the response's stream, until it ends. */
export async function readUiStream(response: Response, onChunk: (chunk: UiChunk) => void): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data || data === "[DONE]") continue;
      try {
        onChunk(JSON.parse(data) as UiChunk);
      } catch {
        onChunk({ type: "error", errorText: `The chat sent something unreadable: ${data.slice(0, 80)}` });
      }
    }
  }
}
