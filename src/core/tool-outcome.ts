/**
 * What the `tool.execute` activity comes to, as a `kind`-tagged union, and the adapter that reads
 * the untagged shapes of histories recorded before the tag. Pure and workflow-safe.
 */
import type { RemoteToolRequest } from "./remote-tool.js";
import type { ToolCallResult } from "./tool-result.js";
import type { Message, ToolCallRecord } from "./types.js";

/** A call that finished on the worker: `ok`, `failed` or `refused`. */
export type ToolResultOutcome = { kind: "result" } & ToolCallResult;

/** A call that needs approval first: nothing has run yet. */
export interface ApprovalRequired {
  kind: "approval-required";
  /** The call's input, as a person will see it. */
  input: unknown;
  /** How long the call waits for a decision (the tool's `approvalTimeoutMs`). */
  timeoutMs?: number;
}

/** A valid call of a sub-agent tool (`agent.asTool()`): the workflow runs the agent as a child workflow. */
export interface SubAgentRequest {
  kind: "sub-agent";
  input: unknown;
  /** The sub-agent's name. */
  agent: string;
  /** The sub-agent's request: its run's first user message. */
  message: string;
}

/** A handoff tool's call: the run continues with `to` (from `messages`, when an `inputFilter` trimmed them). */
export interface HandoffRequest {
  kind: "handoff";
  input: unknown;
  /** The agent the run goes to. */
  to: string;
  /** The conversation the next agent starts from, when an `inputFilter` replaced it. */
  messages?: Message[];
}

/** What `tool.execute` returns, told apart by `kind`; the workflow switches on it exhaustively. */
export type ToolOutcome = ToolResultOutcome | ApprovalRequired | SubAgentRequest | HandoffRequest | RemoteToolRequest;

/**
 * `tool.execute`'s results as histories recorded before the tag hold them, told apart by which key
 * is present: a result (or, older still, a whole record), or one of three requests.
 */
export type UntaggedToolOutcome =
  | ToolCallResult
  | ToolCallRecord
  | { approvalRequired: Omit<ApprovalRequired, "kind"> }
  | { subAgentCall: Omit<SubAgentRequest, "kind"> }
  | { handoff: Omit<HandoffRequest, "kind"> };

/** A `tool.execute` result as the workflow receives it: a replay returns what the history recorded, tagged or not. */
export type RecordedToolOutcome = ToolOutcome | UntaggedToolOutcome;

/** The tagged outcome of a `tool.execute` result, whichever shape the history recorded it in. */
export function toolOutcomeOf(recorded: RecordedToolOutcome): ToolOutcome {
  if ("kind" in recorded) return recorded;
  if ("approvalRequired" in recorded) return { kind: "approval-required", ...recorded.approvalRequired };
  if ("subAgentCall" in recorded) return { kind: "sub-agent", ...recorded.subAgentCall };
  if ("handoff" in recorded) return { kind: "handoff", ...recorded.handoff };
  return { kind: "result", ...recorded };
}

/** The finished call's result without its tag: what the run's record is built from. */
export function resultOf({ kind: _kind, ...result }: ToolResultOutcome): ToolCallResult {
  return result;
}

/** The end of an exhaustive switch: a value of a kind it does not know fails loudly. */
export function unknownKind(value: never): never {
  throw new Error(`unknown kind: ${JSON.stringify(value)}`);
}
