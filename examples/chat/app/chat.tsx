"use client";
/**
 * The chat: `useChat` over `DurableChatTransport` (reconnects by itself, watches the chat so a
 * decision made in another tab shows live) or over the AI SDK's `DefaultChatTransport` with
 * `resume: true` (reconnects on reload only). The chat's history comes from
 * `GET /api/chat/{id}/stream?messages`, the session's durable history.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { DurableChatTransport } from "durable-agent/ui";
import { useEffect, useMemo, useState } from "react";
import { MessageView } from "./message";

const API = "/api/chat";

type History = { status: "loading" } | { status: "loaded"; messages: UIMessage[] } | { status: "none"; code: number };

export function Chat({ chatId, durable }: { chatId: string; durable: boolean }) {
  const [history, setHistory] = useState<History>({ status: "loading" });
  useEffect(() => {
    let current = true;
    fetch(`${API}/${encodeURIComponent(chatId)}/stream?messages`).then(async (response) => {
      if (!current) return;
      // 404: a new chat, or one that is not yours: the answer does not say which.
      if (!response.ok) return setHistory({ status: "none", code: response.status });
      setHistory({ status: "loaded", messages: (await response.json()) as UIMessage[] });
    });
    return () => {
      current = false;
    };
  }, [chatId]);
  if (history.status === "loading") return <p data-testid="history-status">Loading the chat…</p>;
  return (
    <>
      <p data-testid="history-status" data-status={history.status} style={{ color: "#777", fontSize: 13 }}>
        {history.status === "loaded"
          ? `${history.messages.length} message(s) from the chat's durable history`
          : `No history (${history.code}): a new chat, or not yours`}
      </p>
      <Conversation chatId={chatId} durable={durable} initial={history.status === "loaded" ? history.messages : []} />
    </>
  );
}

function Conversation({ chatId, durable, initial }: { chatId: string; durable: boolean; initial: UIMessage[] }) {
  const transport = useMemo(
    () => (durable ? new DurableChatTransport({ api: API }) : new DefaultChatTransport({ api: API })),
    [durable],
  );
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse, resumeStream } = useChat({
    id: chatId,
    messages: initial,
    transport,
    resume: true,
    // An approval decision goes to the server as soon as it is made (POST with the decided tool part).
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  // DurableChatTransport watches the chat: an answer that starts in another tab (after an approval made there) shows here live.
  // Only once the chat has a message: until its first message starts it, its routes answer 404, which ends a watch.
  const started = messages.length > 0;
  useEffect(
    () =>
      started && transport instanceof DurableChatTransport
        ? transport.watch(chatId, () => void resumeStream())
        : undefined,
    [transport, chatId, resumeStream, started],
  );
  const [input, setInput] = useState("");
  return (
    <section>
      <div data-testid="messages">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            decide={(id, approved) =>
              addToolApprovalResponse({ id, approved, ...(approved ? {} : { reason: "rejected in the page" }) })
            }
          />
        ))}
      </div>
      {error && (
        <p data-testid="error" style={{ color: "crimson" }}>
          {readable(error)}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput("");
        }}
        style={{ display: "flex", gap: 8, marginTop: 16 }}
      >
        <input
          data-testid="input"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Ask for a story, the weather, a refund, some research, or to swap squats"
          style={{ flex: 1 }}
        />
        <button data-testid="send" type="submit" disabled={status === "submitted" || status === "streaming"}>
          Send
        </button>
        <button data-testid="stop" type="button" onClick={() => void stop()} disabled={status !== "streaming"}>
          Stop
        </button>
      </form>
      <p data-testid="status" data-status={status} style={{ color: "#777", fontSize: 13 }}>
        {status}
      </p>
    </section>
  );
}

/**
 * An error as a line to read: the routes answer `{"error":{"name","message"}}`, which the AI SDK's
 * transports pass on as the error's message. A 404 says no more than the server does.
 */
function readable(error: Error): string {
  let body: unknown;
  try {
    body = JSON.parse(error.message);
  } catch {
    return error.message;
  }
  const inner = (body as { error?: { name?: unknown; message?: unknown } } | null)?.error;
  if (inner?.name === "NotFound") return "This chat does not exist, or is not yours.";
  return typeof inner?.message === "string" ? inner.message : error.message;
}
