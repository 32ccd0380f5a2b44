/**
 * The `data-*` parts the UI message stream adds to an answer for this library's own events, by
 * name (`data-reprompt` carries a `DurableAgentUIDataTypes["reprompt"]`). Type a chat's messages
 * with them: `UIMessage<unknown, DurableAgentUIDataTypes>`.
 */
import type { RepromptKind, StopReason, TraceEvent } from "../../core/types.js";
import type { RunUsage } from "../../core/usage.js";

/** A part of a sub-agent's answer, as `data-subagent` carries it. */
export type SubAgentPart =
  | { type: "text"; trip: number; text: string }
  | {
      type: "tool";
      toolCallId: string;
      toolName: string;
      /** The AI SDK's tool part states. */
      state: "input-available" | "approval-requested" | "output-available" | "output-error" | "output-denied";
      input?: unknown;
      output?: unknown;
      errorText?: string;
    }
  | { type: "reprompt"; trip: number; kind: RepromptKind; text: string }
  | { type: "retry"; trip: number; attempt: number };

/** A sub-agent's run, nested under the tool call that started it: the whole of it so far, sent again as it grows. */
export interface SubAgentData {
  /** The sub-agent's name, and its agent path (root first). */
  agent: string;
  agents: string[];
  /** The tool call of the calling agent that started it, and that tool's name. */
  callId: string;
  tool: string;
  workflowId: string;
  /** The id of the `data-subagent` part of the sub-agent that called this one, when it is nested deeper. */
  parent?: string;
  /** "running", then how its run ended (a stop reason, or "failed"). */
  status: "running" | StopReason | "failed";
  parts: SubAgentPart[];
  usage?: RunUsage;
}

/** The data parts of the UI message stream, by name (the part's type is `data-<name>`). */
export interface DurableAgentUIDataTypes {
  [name: string]: unknown;
  /** A re-prompt the contract sent (`kind`: act-when-asked, refusal-retry, output-repair, backstop), or one it withheld (`withheld`). */
  reprompt: { trip: number; kind: RepromptKind; text?: string; source?: string; withheld?: true; detail?: string };
  /** A backstop that detected, ran, prompted, failed or was skipped. */
  backstop: Extract<TraceEvent, { type: "backstop" }>;
  /** The model call of `trip` was retried (attempt `attempt`): the failed attempt's parts were removed (`reset-step`). */
  retry: { trip: number; attempt: number };
  /** Tokens (and cost) of this answer's model calls so far: one part, updated after each trip. */
  usage: RunUsage;
  /** A sub-agent's run: one part per run, updated as it goes. */
  subagent: SubAgentData;
  /** Why the answer ended. */
  stopped: { stopReason: StopReason; detail: string };
  /** Any other trace event, as it is (budget used up, handoff, agent changed, fork, callback error). */
  trace: TraceEvent;
}
