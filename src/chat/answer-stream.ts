/**
 * One session message's answer as a UI message stream response: its events from an offset, with
 * the message id the chat gives it, ending at the end of the message, or at a tool call that
 * still waits for approval (useChat sends a decision only once the stream has ended).
 *
 * A stop-gap mapping (start, text, tool calls, approvals, finish) until the UI message stream
 * module (`ui-message-stream.ts`) lands, which replaces this file's body.
 */
import type { Client } from "@temporalio/client";
import type { UIMessageChunk } from "ai";
import { RunEventStream } from "../client/run-event-stream.js";
import type { StreamedRunEvent } from "../core/run-events.js";
import { pendingApprovalsQuery } from "../workflows/definitions.js";

/** Where an answer's stream starts, and the id its message carries. */
export interface AnswerStreamOptions {
  fromOffset: number;
  messageId: string;
}

/** The answer's chunks as an SSE response (the AI SDK's UI message stream protocol). */
export function answerStreamResponse(client: Client, workflowId: string, options: AnswerStreamOptions): Response {
  const events = new RunEventStream(client, workflowId, () => new Promise(() => undefined), {
    fromOffset: options.fromOffset,
    subAgents: false,
  });
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  let text: string | undefined;
  let done = false;
  const chunks = async (event: StreamedRunEvent): Promise<UIMessageChunk[]> => {
    const close = (): UIMessageChunk[] => (text ? [{ type: "text-end", id: text }] : []);
    switch (event.type) {
      case "text.delta": {
        const id = `text-${event.trip}-${event.attempt}`;
        const open: UIMessageChunk[] = text === id ? [] : [...close(), { type: "text-start", id }];
        text = id;
        return [...open, { type: "text-delta", id, delta: event.text }];
      }
      case "approval": {
        if (event.outcome !== "requested") return [];
        const pending = await client.workflow.getHandle(workflowId).query(pendingApprovalsQuery);
        if (!pending.some((p) => p.callId === event.callId)) return [];
        done = true;
        const toolCallId = event.callId;
        return [
          ...close(),
          { type: "tool-input-available", toolCallId, toolName: event.tool, input: event.input },
          { type: "tool-approval-request", approvalId: toolCallId, toolCallId },
          { type: "finish", finishReason: "tool-calls" },
        ];
      }
      case "run.stopped":
        done = true;
        return [...close(), { type: "finish", finishReason: event.stopReason === "answered" ? "stop" : "other" }];
      case "message.failed":
        done = true;
        return [...close(), { type: "error", errorText: event.error.message }];
      default:
        return [];
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(sse({ type: "start", messageId: options.messageId })));
    },
    async pull(controller) {
      // Until a chunk is sent: a pull that enqueues nothing is not called again.
      for (let sent = 0; sent === 0;) {
        const { value, done: ended } = await iterator.next();
        if (ended) return controller.close();
        for (const chunk of await chunks(value)) sent += (controller.enqueue(encoder.encode(sse(chunk))), 1);
        if (done) {
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
          await iterator.return?.();
          return;
        }
      }
    },
    async cancel() {
      await iterator.return?.(); // a dropped connection stops the reading, never the run
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-vercel-ai-ui-message-stream": "v1",
    },
  });
}

function sse(chunk: UIMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
