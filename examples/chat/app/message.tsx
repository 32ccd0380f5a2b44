"use client";
/**
 * One message, part by part: text, reasoning, tool calls (with Approve / Reject while a call
 * waits for approval), and durable-agent's `data-*` parts (a re-prompt marker and why, sub-agent
 * events nested under the call that started them, retries, usage).
 */
import { getToolName, isToolUIPart, type UIMessage } from "ai";

type Part = UIMessage["parts"][number];

export function MessageView({
  message,
  decide,
}: {
  message: UIMessage;
  decide: (approvalId: string, approved: boolean) => void;
}) {
  return (
    <article
      data-testid="message"
      data-role={message.role}
      data-id={message.id}
      style={{ borderTop: "1px solid #ddd", padding: "8px 0" }}
    >
      <strong>{message.role === "user" ? "You" : "Assistant"}</strong>
      {message.parts.map((part, index) => (
        <PartView key={index} part={part} decide={decide} />
      ))}
    </article>
  );
}

function PartView({ part, decide }: { part: Part; decide: (approvalId: string, approved: boolean) => void }) {
  if (part.type === "text")
    return (
      <p data-testid="text" style={{ whiteSpace: "pre-wrap" }}>
        {part.text}
      </p>
    );
  if (part.type === "reasoning")
    return (
      <details data-testid="reasoning" open style={{ color: "#777" }}>
        <summary>Reasoning</summary>
        {part.text}
      </details>
    );
  if (part.type === "step-start") return null;
  if (isToolUIPart(part)) return <ToolView part={part} decide={decide} />;
  if (part.type.startsWith("data-")) return <DataView type={part.type} data={(part as { data: unknown }).data} />;
  return null;
}

function ToolView({
  part,
  decide,
}: {
  part: Extract<Part, { toolCallId: string }>;
  decide: (approvalId: string, approved: boolean) => void;
}) {
  const name = getToolName(part);
  return (
    <div
      data-testid="tool"
      data-tool={name}
      data-state={part.state}
      style={{ border: "1px solid #ccd", borderRadius: 6, padding: 8, margin: "6px 0", fontSize: 14 }}
    >
      <div>
        🔧 <code>{name}</code> <span data-testid="tool-state">{part.state}</span>
      </div>
      {part.input !== undefined && <pre data-testid="tool-input">{JSON.stringify(part.input)}</pre>}
      {part.state === "approval-requested" && (
        <div>
          <button data-testid="approve" onClick={() => decide(part.approval.id, true)}>
            Approve
          </button>{" "}
          <button data-testid="reject" onClick={() => decide(part.approval.id, false)}>
            Reject
          </button>
        </div>
      )}
      {part.state === "output-available" && <pre data-testid="tool-output">{JSON.stringify(part.output)}</pre>}
      {part.state === "output-error" && <p data-testid="tool-error">{part.errorText}</p>}
      {part.state === "output-denied" && <p data-testid="tool-denied">Rejected</p>}
    </div>
  );
}

function DataView({ type, data }: { type: string; data: unknown }) {
  const fields = (data ?? {}) as Record<string, unknown>;
  if (type === "data-reprompt")
    return (
      <div
        data-testid="reprompt"
        style={{ borderLeft: "3px solid orange", padding: "2px 8px", margin: "6px 0", fontSize: 13 }}
      >
        ↻ Re-prompted ({String(fields.kind)}): {String(fields.text ?? fields.reason ?? "")}
      </div>
    );
  return (
    <div
      data-testid={type}
      data-agents={agentsOf(fields)}
      style={{ marginLeft: 16 * depth(fields), fontSize: 12, color: "#666" }}
    >
      <code>{type.slice("data-".length)}</code> {JSON.stringify(data)}
    </div>
  );
}

/** The agent path a sub-agent's event carries (`["chat-assistant", "chat-researcher"]`). */
function agentsOf(fields: Record<string, unknown>): string | undefined {
  return Array.isArray(fields.agents) ? fields.agents.join("/") : undefined;
}

function depth(fields: Record<string, unknown>): number {
  return Array.isArray(fields.agents) ? Math.max(0, fields.agents.length - 1) : 0;
}
