"use client";
/**
 * One message, part by part: text, reasoning, tool calls (with Approve / Reject while a call
 * waits for approval), and durable-agent's `data-*` parts (a re-prompt marker and why, sub-agent
 * events nested under the call that started them, retries, usage).
 */
import { getToolName, isToolUIPart, type UIMessage } from "ai";

type Part = UIMessage["parts"][number];

/** JSON in a tool card wraps inside it: a long output (a refund id) would run past the card. */
const WRAP = { whiteSpace: "pre-wrap", overflowWrap: "anywhere" } as const;
export function MessageView({
  message,
  decide,
}: {
  message: UIMessage;
  decide: (approvalId: string, approved: boolean) => void;
}) {
  const subagents = subagentsOf(message);
  return (
    <article
      data-testid="message"
      data-role={message.role}
      data-id={message.id}
      style={{ borderTop: "1px solid #ddd", padding: "8px 0" }}
    >
      <strong>{message.role === "user" ? "You" : "Assistant"}</strong>
      {message.parts.map((part, index) => (
        <PartView key={index} part={part} decide={decide} subagents={subagents} />
      ))}
      <UsageView message={message} />
    </article>
  );
}

/** A sub-agent's run as its `data-subagent` part carries it (durable-agent's `SubAgentData`). */
interface SubAgent {
  agent: string;
  agents: string[];
  callId: string;
  status: string;
  parts: Array<
    | { type: "text"; text: string }
    | { type: "tool"; toolName: string; state: string }
    | { type: "reprompt"; kind: string; text?: string }
    | { type: "retry"; attempt: number }
  >;
}

/** The message's sub-agent runs, by the tool call that started each. */
function subagentsOf(message: UIMessage): Map<string, SubAgent> {
  const runs = new Map<string, SubAgent>();
  for (const part of message.parts)
    if (part.type === "data-subagent") {
      const run = (part as { data: SubAgent }).data;
      runs.set(run.callId, run);
    }
  return runs;
}

function PartView({
  part,
  decide,
  subagents,
}: {
  part: Part;
  decide: (approvalId: string, approved: boolean) => void;
  subagents: Map<string, SubAgent>;
}) {
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
  if (isToolUIPart(part)) return <ToolView part={part} decide={decide} subagent={subagents.get(part.toolCallId)} />;
  // A sub-agent's part shows under the tool call that started it (ToolView); the tokens used, at the message's foot (UsageView).
  if (part.type === "data-subagent" || part.type === "data-usage") return null;
  // How the answer ended: shown only when it ended other than answered (cancelled, out of trips or budget).
  if (part.type === "data-stopped" && (part as { data: { stopReason: string } }).data.stopReason === "answered")
    return null;
  if (part.type.startsWith("data-")) return <DataView type={part.type} data={(part as { data: unknown }).data} />;
  return null;
}

function ToolView({
  part,
  decide,
  subagent,
}: {
  part: Extract<Part, { toolCallId: string }>;
  decide: (approvalId: string, approved: boolean) => void;
  subagent: SubAgent | undefined;
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
        tool <code>{name}</code> <span data-testid="tool-state">{part.state}</span>
      </div>
      {part.input !== undefined && (
        <pre data-testid="tool-input" style={WRAP}>
          {JSON.stringify(part.input)}
        </pre>
      )}
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
      {part.state === "output-available" && (
        <pre data-testid="tool-output" style={WRAP}>
          {JSON.stringify(part.output)}
        </pre>
      )}
      {part.state === "output-error" && <p data-testid="tool-error">{part.errorText}</p>}
      {part.state === "output-denied" && <p data-testid="tool-denied">Rejected</p>}
      {subagent && <SubAgentView run={subagent} />}
    </div>
  );
}

function SubAgentView({ run }: { run: SubAgent }) {
  return (
    <div
      data-testid="subagent"
      data-agent={run.agent}
      data-status={run.status}
      style={{ marginLeft: 16, borderLeft: "3px solid #99c", paddingLeft: 8 }}
    >
      <div style={{ fontSize: 13, color: "#557" }}>
        ↳ sub-agent <code>{run.agent}</code>: <span data-testid="subagent-status">{run.status}</span>
      </div>
      {run.parts.map((part, index) =>
        part.type === "text" ? (
          <p key={index} data-testid="subagent-text" style={{ whiteSpace: "pre-wrap" }}>
            {part.text}
          </p>
        ) : part.type === "tool" ? (
          <div key={index} data-testid="subagent-tool">
            tool <code>{part.toolName}</code> {part.state}
          </div>
        ) : part.type === "reprompt" ? (
          <div key={index} data-testid="subagent-reprompt">
            ↻ Re-prompted ({part.kind})
          </div>
        ) : (
          <div key={index} data-testid="subagent-retry">
            ⟳ retried (attempt {part.attempt})
          </div>
        ),
      )}
    </div>
  );
}

/** The tokens the answer used so far (its `data-usage` part), at the message's foot. */
function UsageView({ message }: { message: UIMessage }) {
  const part = message.parts.find((p) => p.type === "data-usage") as
    { data: { inputTokens?: number; outputTokens?: number } } | undefined;
  if (!part) return null;
  return (
    <footer style={{ fontSize: 12, color: "#888" }}>
      {part.data.inputTokens ?? 0} tokens in, {part.data.outputTokens ?? 0} out
    </footer>
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
        ↻ Re-prompted ({String(fields.kind)}
        {fields.withheld ? ", withheld" : ""}): {String(fields.text ?? fields.detail ?? "")}
      </div>
    );
  return (
    <div data-testid={type} style={{ fontSize: 12, color: "#666" }}>
      <code>{type.slice("data-".length)}</code> {JSON.stringify(data)}
    </div>
  );
}
