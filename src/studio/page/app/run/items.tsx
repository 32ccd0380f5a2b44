/**
 * One conversation item: a message, reasoning, a tool call, an approval, a re-prompt, a backstop, a
 * handoff (a sub-agent's run is nested by the conversation).
 */
import { useState } from "preact/hooks";
import type { ApprovalItem, ConversationItem, ToolCallItem } from "../../../api-types.js";
import * as fmt from "../format.js";
import { href } from "../route.js";

/** What the run page lets an item do: decide a waiting approval (as `as`, when the studio has one), a rejection with its reason. */
export interface Actions {
  as?: string | undefined;
  decide: (callId: string, decision: "approve" | "reject", reason?: string) => void;
  /** The call being decided, while its request is in flight. */
  deciding?: string | undefined;
}

/** An item, by its type. */
export function ItemView({ item, actions }: { item: ConversationItem; actions?: Actions | undefined }) {
  switch (item.type) {
    case "memory":
      return (
        <details class="item memory" data-testid="memory" open>
          <summary>memory · {item.recalled.length} recalled</summary>
          {item.workingMemory !== undefined && <pre data-testid="working-memory">{item.workingMemory}</pre>}
          {item.recalled.map((m) => (
            <p data-testid="recalled">
              <span class="who">
                {m.role} · {m.createdAt.slice(0, 10)}
              </span>{" "}
              {m.text}
            </p>
          ))}
        </details>
      );
    case "user":
      return <Message role="user" text={item.text} />;
    case "assistant":
      return <Message role="assistant" text={item.text} trip={item.trip} />;
    case "reasoning":
      return (
        <details class="item reasoning" data-testid="reasoning">
          <summary>reasoning</summary>
          <p>{item.text}</p>
        </details>
      );
    case "tool-call":
      return <ToolCall call={item} />;
    case "approval":
      return <Approval item={item} actions={actions} />;
    case "reprompt":
      return (
        <div class="item reprompt" data-testid="reprompt" data-trip={item.trip}>
          <span class="who">re-prompt · {item.reason}</span>
          <p>{item.text}</p>
        </div>
      );
    case "backstop":
      return (
        <div class="item backstop" data-testid="backstop" data-trip={item.trip} data-phase={item.phase}>
          <span class="who">
            backstop {item.name}
            {item.phase && ` · ${item.phase} the answer`}
          </span>
          {item.reason && <p>{item.reason}</p>}
          {item.prompt !== undefined && (
            <>
              <span class="label">its prompt to the model</span>
              <p data-testid="backstop-prompt">{item.prompt}</p>
            </>
          )}
        </div>
      );
    case "subagent":
      return null; // nested by the conversation (it renders a conversation)
    case "handoff":
      return (
        <div class="item handoff" data-testid="handoff">
          handed off to <strong>{item.to}</strong> · <a href={href("run", item.workflowId)}>{item.workflowId}</a>
        </div>
      );
    case "session-message":
      return null; // shown as its group's divider
  }
}

function Message({ role, text, trip }: { role: "user" | "assistant"; text: string; trip?: number }) {
  return (
    <div class={`item ${role}`} data-testid="message" data-role={role} data-trip={trip}>
      <span class="who">{role}</span>
      <p>{text}</p>
    </div>
  );
}

function ToolCall({ call }: { call: ToolCallItem }) {
  return (
    <div
      class={`item tool ${call.status}`}
      data-testid="tool-call"
      data-call-id={call.callId}
      data-status={call.status}
    >
      <span class="who">
        tool {call.tool} · <span class={`status ${call.status}`}>{call.status}</span>
        {call.latencyMs !== undefined && ` · ${fmt.ms(call.latencyMs)}`}
        {call.runsOn && <span data-testid="runs-on"> · {call.runsOn}</span>}
      </span>
      {call.refusalReason && (
        <p class="refusal" data-testid="refusal-reason">
          refused: {call.refusalReason}
        </p>
      )}
      <span class="label">input</span>
      <pre data-testid="tool-input">{fmt.json(call.input)}</pre>
      {call.output !== undefined && (
        <>
          <span class="label">output</span>
          <pre data-testid="tool-output">{fmt.json(call.output)}</pre>
        </>
      )}
    </div>
  );
}

/** A waiting or decided approval, with approve and reject (with a reason) while it waits. */
export function Approval({ item, actions }: { item: ApprovalItem; actions?: Actions | undefined }) {
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const waiting = item.decision === undefined;
  const cannot = !actions?.as ? "start the studio with --as <name> to decide" : undefined;
  const busy = !!cannot || actions?.deciding === item.callId;
  return (
    <div
      class={`item approval ${item.decision ?? "waiting"}`}
      data-testid="approval"
      data-call-id={item.callId}
      data-decision={item.decision ?? "waiting"}
    >
      <span class="who">approval · {item.tool}</span>
      {waiting ? (
        actions &&
        (rejecting ? (
          <form
            class="buttons"
            data-testid="reject-form"
            onSubmit={(e) => {
              e.preventDefault();
              actions.decide(item.callId, "reject", reason.trim());
            }}
          >
            <input
              data-testid="reject-reason"
              placeholder="why (recorded with the decision, and told to the model)"
              value={reason}
              size={48}
              onInput={(e) => setReason(e.currentTarget.value)}
            />
            <button type="submit" data-testid="reject-confirm" disabled={busy}>
              Reject as {actions.as}
            </button>
            <button type="button" onClick={() => setRejecting(false)}>
              Back
            </button>
          </form>
        ) : (
          <span class="buttons">
            waiting for a decision{" "}
            <button
              data-testid="approve"
              title={cannot ?? `approve as ${actions.as}`}
              disabled={busy}
              onClick={() => actions.decide(item.callId, "approve")}
            >
              Approve{actions.as ? ` as ${actions.as}` : ""}
            </button>
            <button
              data-testid="reject"
              title={cannot ?? `reject as ${actions.as}, with a reason`}
              disabled={busy}
              onClick={() => setRejecting(true)}
            >
              Reject…
            </button>
          </span>
        ))
      ) : (
        <span data-testid="decision">
          {item.decision === "timedOut" ? "timed out" : item.decision}
          {item.by && ` by ${item.by}`}
          {item.at && ` at ${fmt.time(item.at)}`}
          {item.reason && <span data-testid="decision-reason">: {item.reason}</span>}
        </span>
      )}
    </div>
  );
}
