/**
 * The chat panel (`#/chat?agent=<name>&id=<chatId>`): talk to any agent of the module through the
 * library's own chat handler (`/api/chat/<agent>`, a chat is a session of the agent run by the
 * studio's worker), its answers streaming in, with approve and reject buttons for the tool calls
 * that wait for a person, and a link to the session's run page. A chat opened by its link (a
 * reload) shows its history, then resumes the answer in flight, if any (`GET …/stream`).
 */
import { useEffect, useState } from "preact/hooks";
import { segment } from "../api.js";
import * as fmt from "../format.js";
import { useMeta } from "../meta.js";
import { href, navigate } from "../route.js";
import { readUiStream, type UiChunk } from "./ui-stream.js";

/** A tool call in an answer, as the stream tells it. */
interface ChatTool {
  callId: string;
  tool: string;
  input: unknown;
  state: "running" | "waiting" | "done" | "denied" | "failed";
  output?: unknown;
}

/** A message of the panel. */
interface ChatMessage {
  id: string;
  role: "user" | "assistant";
  text: string;
  tools: ChatTool[];
  error?: string;
}

/** A message of the chat's history, as the chat handler gives it (`UIMessage`: text and tool parts). */
interface HistoryMessage {
  id: string;
  role: string;
  parts: Array<{
    type: string;
    text?: string;
    toolCallId?: string;
    input?: unknown;
    state?: string;
    output?: unknown;
    errorText?: string;
  }>;
}

const STATE_OF_PART: Record<string, ChatTool["state"]> = {
  "approval-requested": "waiting",
  "output-available": "done",
  "output-denied": "denied",
  "output-error": "failed",
};

/** A history message as the panel shows it. */
function fromHistory(message: HistoryMessage): ChatMessage[] {
  if (message.role !== "user" && message.role !== "assistant") return [];
  const text = message.parts.flatMap((p) => (p.type === "text" && p.text ? [p.text] : [])).join("");
  const tools = message.parts.flatMap((p): ChatTool[] =>
    p.type.startsWith("tool-") && p.toolCallId
      ? [
          {
            callId: p.toolCallId,
            tool: p.type.slice("tool-".length),
            input: p.input,
            state: STATE_OF_PART[p.state ?? ""] ?? "running",
            ...(p.output !== undefined || p.errorText ? { output: p.output ?? p.errorText } : {}),
          },
        ]
      : [],
  );
  return [{ id: message.id, role: message.role, text, tools }];
}

/**
 * A failed response's message for a person: the studio's `{ error: "…" }`, the chat handler's
 * `{ error: { name, message } }`, or its plain-text sentence (where `useChat` expects a stream).
 */
async function errorOf(response: Response): Promise<string> {
  const body = await response.text().catch(() => "");
  try {
    const error = (JSON.parse(body) as { error?: string | { message?: string } }).error;
    const message = typeof error === "string" ? error : error?.message;
    if (message) return message;
  } catch {
    if (body.trim()) return body.trim();
  }
  return `${response.status} ${response.statusText}`;
}

/** A new chat's id: the session's id (it names its workflow). */
const newChatId = () => `studio-chat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** The panel. */
export function ChatPage({ agent, chatId }: { agent: string; chatId: string }) {
  const meta = useMeta();
  const chosen = agent || meta.agents[0]?.name || "";
  const [id] = useState(() => chatId || newChatId());
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  // A chat opened by its link (a reload): its history, then the answer in flight, from the chat handler.
  useEffect(() => {
    if (!chatId || !chosen || !meta.canChat) return;
    const leaving = new AbortController();
    void reopen(`/api/chat/${segment(chosen)}/${segment(chatId)}/stream`, leaving.signal);
    return () => leaving.abort(); // a dropped resume is not a stop: the answer goes on
  }, [chatId, chosen, meta.canChat]);
  if (!meta.canChat)
    return (
      <p class="hint" data-testid="chat-unavailable">
        Chatting needs the agents module: start the studio with it (<code>durable-agent studio ./agents.ts</code>).
      </p>
    );

  /** Applies a chunk to the last (assistant) message. */
  const apply = (chunk: UiChunk) =>
    setMessages((all) => {
      const last = all.at(-1);
      if (!last || last.role !== "assistant") return all;
      const next = { ...last, tools: [...last.tools] };
      const tool = (callId: string, change: Partial<ChatTool>) => {
        const i = next.tools.findIndex((t) => t.callId === callId);
        if (i >= 0) next.tools[i] = { ...next.tools[i]!, ...change };
      };
      switch (chunk.type) {
        case "start":
          if (chunk.messageId) next.id = chunk.messageId;
          break;
        case "text-delta":
          next.text += chunk.delta;
          break;
        case "tool-input-available":
          if (!next.tools.some((t) => t.callId === chunk.toolCallId))
            next.tools.push({ callId: chunk.toolCallId, tool: chunk.toolName, input: chunk.input, state: "running" });
          break;
        case "tool-approval-request":
          tool(chunk.toolCallId, { state: "waiting" });
          break;
        case "tool-output-available":
          tool(chunk.toolCallId, { state: "done", output: chunk.output });
          break;
        case "tool-output-denied":
          tool(chunk.toolCallId, { state: "denied" });
          break;
        case "tool-output-error":
          tool(chunk.toolCallId, { state: "failed", output: chunk.errorText });
          break;
        case "error":
          next.error = chunk.errorText;
          break;
      }
      return [...all.slice(0, -1), next];
    });

  /**
   * Shows the chat's history (which leaves out an answer in flight), then resumes that answer:
   * the stream replays it from its `start`, whose message id takes the place of a message of the
   * history with that id (one waiting for approval), so no text shows twice. A 204 is no answer in
   * flight; if one ended between the two reads, the history is read again to show it.
   */
  const reopen = async (stream: string, signal: AbortSignal) => {
    /** A failed read's message, under the chat. */
    const failed = async (response: Response) => {
      const error = await errorOf(response);
      setMessages((all) => [...all, { id: "", role: "assistant", text: "", tools: [], error }]);
    };
    const history = async () => {
      const response = await fetch(`${stream}?messages`, { headers: { accept: "application/json" }, signal });
      if (!response.ok) return (await failed(response), undefined);
      const shown = ((await response.json()) as HistoryMessage[]).flatMap(fromHistory);
      setMessages(shown);
      return shown;
    };
    try {
      const shown = await history();
      if (!shown) return;
      const response = await fetch(stream, { headers: { accept: "text/event-stream" }, signal });
      if (response.status === 204) {
        if (shown.at(-1)?.role === "user") await history();
        return;
      }
      if (!response.ok || !response.body) return await failed(response);
      setBusy(true);
      await readUiStream(response, (chunk) =>
        chunk.type === "start"
          ? setMessages((all) => [
              ...all.filter((m) => m.id !== chunk.messageId),
              { id: chunk.messageId ?? "", role: "assistant", text: "", tools: [] },
            ])
          : apply(chunk),
      );
    } catch (error) {
      if (!signal.aborted)
        setMessages((all) => [
          ...all,
          {
            id: "",
            role: "assistant",
            text: "",
            tools: [],
            error: `The chat could not be read: ${(error as Error).message}`,
          },
        ]);
    } finally {
      if (!signal.aborted) setBusy(false);
    }
  };

  /** POSTs `body` to the agent's chat handler and streams its answer into the last message. */
  const send = async (body: unknown) => {
    setBusy(true);
    try {
      const response = await fetch(`/api/chat/${segment(chosen)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok || !response.body) {
        apply({ type: "error", errorText: await errorOf(response) });
        return;
      }
      await readUiStream(response, apply);
    } catch (error) {
      apply({ type: "error", errorText: (error as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    // The chat's id in the URL, without a hashchange (which would start the panel afresh): a link to this chat.
    if (!chatId) window.history.replaceState(null, "", href("chat", { agent: chosen, id }));
    const user: ChatMessage = { id: `user-${messages.length}`, role: "user", text, tools: [] };
    setMessages((all) => [...all, user, { id: "", role: "assistant", text: "", tools: [] }]);
    setDraft("");
    void send({
      id,
      trigger: "submit-message",
      messages: [{ id: user.id, role: "user", parts: [{ type: "text", text }] }],
    });
  };

  const decide = (message: ChatMessage, call: ChatTool, approved: boolean) => {
    setMessages((all) =>
      all.map((m) =>
        m === message
          ? { ...m, tools: m.tools.map((t) => (t === call ? { ...t, state: approved ? "running" : "denied" } : t)) }
          : m,
      ),
    );
    const part = {
      type: `tool-${call.tool}`,
      toolCallId: call.callId,
      state: "approval-responded",
      input: call.input,
      approval: { id: call.callId, approved, ...(approved ? {} : { reason: "rejected in the studio's chat" }) },
    };
    void send({ id, trigger: "submit-message", messages: [{ id: message.id, role: "assistant", parts: [part] }] });
  };

  return (
    <section class="chat" data-testid="chat" data-chat-id={id} data-busy={String(busy)}>
      <header class="filters">
        <label>
          agent
          <select
            data-testid="chat-agent"
            value={chosen}
            disabled={messages.length > 0}
            onChange={(e) => navigate(href("chat", { agent: e.currentTarget.value }))}
          >
            {meta.agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <span class="hint">
          A chat is a session of {chosen}, on the studio's worker
          {meta.as ? `; you decide approvals as ${meta.as}` : ""}.
        </span>
        {messages.length > 0 && (
          <a data-testid="chat-run-link" href={href("run", `${chosen}-session-${id}`)}>
            its run page
          </a>
        )}
        <a href={href("chat", { agent: chosen })} data-testid="chat-new">
          new chat
        </a>
      </header>
      {messages.map((message, i) => (
        <div key={i} class={`bubble ${message.role}`} data-testid="chat-message" data-role={message.role}>
          <span data-testid="chat-text">
            {message.text || (message.role === "assistant" && busy && !message.tools.length ? "…" : "")}
          </span>
          {message.tools.map((call) => (
            <div key={call.callId} class="chat-tool" data-testid="chat-tool" data-state={call.state}>
              <strong>{call.tool}</strong> <code>{fmt.json(call.input)}</code> · {call.state}
              {call.output !== undefined && <pre>{fmt.json(call.output)}</pre>}
              {call.state === "waiting" && (
                <div class="buttons">
                  <button data-testid="chat-approve" disabled={busy} onClick={() => decide(message, call, true)}>
                    Approve{meta.as ? ` as ${meta.as}` : ""}
                  </button>
                  <button data-testid="chat-reject" disabled={busy} onClick={() => decide(message, call, false)}>
                    Reject
                  </button>
                </div>
              )}
            </div>
          ))}
          {message.error && (
            <p class="error" data-testid="chat-error">
              {message.error}
            </p>
          )}
        </div>
      ))}
      <form onSubmit={submit}>
        <input
          data-testid="chat-input"
          placeholder={`Message ${chosen}`}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <button type="submit" data-testid="chat-send" disabled={busy || !draft.trim()}>
          Send
        </button>
      </form>
    </section>
  );
}
